public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import PodiumCore
import Synchronization

/// WHIP's HTTP exchange (RFC 9725): the offer POSTed as `application/sdp` with the Bearer token,
/// the answer in a 201 with the session's resource in `Location`, candidates gathered late PATCHed
/// to it when the server says it takes them (`Accept-Patch`), and a DELETE of it at the end.
/// Errors name the endpoint masked, and never its token; the token goes to the endpoint's own
/// origin only (not to another a redirect or `Location` names, nor from https to http); an
/// answer is read up to 256 KiB.
public struct WHIPSession: Sendable {
    public let endpoint: WHIPEndpoint
    /// The session's resource, from `Location` (resolved against the endpoint).
    public let resource: URL?
    /// The answer's SDP.
    public let answer: String
    /// Milliseconds from the POST to the answer.
    public let milliseconds: Int
    /// Whether the server takes candidates trickled after the offer, and the session's entity tag
    /// its PATCHes must match, if it gave one.
    public let trickles: Bool
    let entityTag: String?

    /// The most an answer may hold: an SDP is a few kilobytes.
    static let largestAnswer = 256 << 10

    /// POSTs `offer` to `endpoint`.
    /// - Throws: 69 with the status when the endpoint refuses (a 4xx: a bad token, no such room),
    ///   or answers with no SDP, no `Location`, or more than 256 KiB; 74 when it cannot be reached
    ///   or fails (a 5xx), which may pass.
    public static func offer(_ offer: String, to endpoint: WHIPEndpoint, timeout: Double = 10)
        async throws(PodiumError) -> WHIPSession {
        var request = URLRequest(url: endpoint.url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
        if let token = endpoint.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(offer.utf8)
        let (clock, start) = (MonotonicClock(), MonotonicClock().now())
        let (data, response) = try await exchange(request, endpoint: endpoint)
        guard response.statusCode == 201 || response.statusCode == 200 else {
            let status = "the WHIP endpoint \(endpoint) answered \(response.statusCode) "
                + HTTPURLResponse.localizedString(forStatusCode: response.statusCode)
            throw (400..<500).contains(response.statusCode) ? .unavailable(status) : PodiumError(.io, status)
        }
        guard let answer = String(data: data, encoding: .utf8), answer.hasPrefix("v=0") else {
            throw .unavailable("the WHIP endpoint \(endpoint) answered \(response.statusCode) with no SDP")
        }
        guard let location = response.value(forHTTPHeaderField: "Location"),
              let resource = URL(string: location, relativeTo: endpoint.url)?.absoluteURL else {
            throw .unavailable("the WHIP endpoint \(endpoint) answered \(response.statusCode) without the session's "
                               + "Location")
        }
        let patches = response.value(forHTTPHeaderField: "Accept-Patch") ?? ""
        return WHIPSession(endpoint: endpoint, resource: resource,
                           answer: answer, milliseconds: Int((clock.now() - start) / 1_000_000),
                           trickles: patches.contains(TrickleFragment.contentType),
                           entityTag: response.value(forHTTPHeaderField: "ETag"))
    }

    /// PATCHes `fragment` (late candidates, `TrickleFragment`) to the session's resource.
    /// - Returns: the status (204 when taken), or `nil` when there was no resource or it could not be reached.
    public func trickle(_ fragment: String, timeout: Double = 5) async -> Int? {
        guard var request = resourceRequest("PATCH", timeout: timeout) else { return nil }
        request.setValue(TrickleFragment.contentType, forHTTPHeaderField: "Content-Type")
        if let entityTag { request.setValue(entityTag, forHTTPHeaderField: "If-Match") }
        request.httpBody = Data(fragment.utf8)
        return try? await Self.exchange(request, endpoint: endpoint).1.statusCode
    }

    /// DELETEs the session's resource, as WHIP ends a session.
    /// - Returns: the status, or `nil` when there was no resource or it could not be reached.
    public func end(timeout: Double = 5) async -> Int? {
        guard let request = resourceRequest("DELETE", timeout: timeout) else { return nil }
        return try? await Self.exchange(request, endpoint: endpoint).1.statusCode
    }

    /// A request of `method` to the session's resource, with the token when the resource is of the
    /// endpoint's origin; `nil` when it has none.
    private func resourceRequest(_ method: String, timeout: Double) -> URLRequest? {
        guard let resource else { return nil }
        var request = URLRequest(url: resource, timeoutInterval: timeout)
        request.httpMethod = method
        if let token = endpoint.token, WHIPExchange.sameOrigin(resource, endpoint.url) {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    private static func exchange(_ request: URLRequest, endpoint: WHIPEndpoint)
        async throws(PodiumError) -> (Data, HTTPURLResponse) {
        let outcome = await WHIPExchange.run(request, largest: largestAnswer)
        switch outcome {
        case .answered(let data, let response): return (data, response)
        case .tooLarge:
            throw .unavailable("the WHIP endpoint \(endpoint) answered with more than \(largestAnswer >> 10) KiB")
        case .notHTTP: throw .unavailable("the WHIP endpoint \(endpoint) did not answer over HTTP")
        case .failed(let reason): throw PodiumError(.io, "the WHIP endpoint \(endpoint) cannot be reached: \(reason)")
        }
    }

    /// Runs `body` (an exchange) and waits for it on the calling thread: for an output's own
    /// thread, never the cooperative pool.
    static func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws(PodiumError) -> Value)
        throws(PodiumError) -> Value {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Value, PodiumError>?>(nil)
        Task {
            let outcome: Result<Value, PodiumError>
            do throws(PodiumError) {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard let outcome = result.withLock({ $0 }) else { throw .software("a WHIP exchange ended unanswered") }
        return try outcome.get()
    }
}
