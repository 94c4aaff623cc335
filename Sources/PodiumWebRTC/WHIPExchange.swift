import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One HTTP exchange of WHIP's, on a session of its own whose delegate keeps the endpoint's token
/// at home and the answer small: a redirect to another origin, or from https to http, goes
/// without `Authorization`; an answer past `largest` bytes is cut off.
final class WHIPExchange: NSObject, URLSessionDataDelegate, Sendable {
    enum Outcome: Sendable {
        case answered(Data, HTTPURLResponse)
        case tooLarge
        case notHTTP
        case failed(String)
    }

    private let largest: Int
    private struct State {
        var data = Data()
        var tooLarge = false
        var continuation: CheckedContinuation<Outcome, Never>?
    }
    private let state = Mutex(State())

    private init(largest: Int) {
        self.largest = largest
    }

    /// Sends `request` and reads its answer, up to `largest` bytes.
    static func run(_ request: URLRequest, largest: Int) async -> Outcome {
        let exchange = WHIPExchange(largest: largest)
        let session = URLSession(configuration: .ephemeral, delegate: exchange, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return await withCheckedContinuation { continuation in
            exchange.state.withLock { $0.continuation = continuation }
            session.dataTask(with: request).resume()
        }
    }

    /// Whether `one` and `other` share scheme, host and port: the token's own origin.
    static func sameOrigin(_ one: URL, _ other: URL) -> Bool {
        let port = { (url: URL) in url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return one.scheme?.lowercased() == other.scheme?.lowercased()
            && one.host?.lowercased() == other.host?.lowercased() && port(one) == port(other)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        var next = request
        if let from = task.originalRequest?.url, let to = request.url, !Self.sameOrigin(from, to) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cut = state.withLock { state in
            state.data.append(data)
            state.tooLarge = state.data.count > largest
            return state.tooLarge
        }
        if cut { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, outcome): (CheckedContinuation<Outcome, Never>?, Outcome) = state.withLock { state in
            defer { state.continuation = nil }
            let outcome: Outcome = if state.tooLarge {
                .tooLarge
            } else if let error {
                .failed(error.localizedDescription)
            } else if let response = task.response as? HTTPURLResponse {
                .answered(state.data, response)
            } else {
                .notHTTP
            }
            return (state.continuation, outcome)
        }
        continuation?.resume(returning: outcome)
    }
}
