import Foundation
import PodiumCore

/// A UPnP AV media renderer (a TV, a set-top box, a speaker with a screen) as its description and
/// its ConnectionManager tell it: its name, where to control it, and what it plays.
public struct Renderer: Sendable, Equatable {
    /// The name it shows people (`friendlyName`).
    public var name: String
    public var manufacturer: String
    public var model: String
    /// Its unique device name (`UDN`), which stays across restarts.
    public var udn: String
    /// The address it answered from.
    public var address: String
    /// This machine's address that reaches it: where the stream is served from.
    public var localAddress: String
    /// Its description.
    public var location: String
    /// The MIME types of the `http-get` formats it plays (`GetProtocolInfo`'s sink list).
    public var accepts: [String]
    /// Its `http-get` protocols as it wrote them, for the format chosen.
    var sinkProtocols: [String]
    var avTransport: HTTPAddress
    var avTransportType: String

    /// The MIME types Podium's MPEG-TS goes out as, the most fitting first: renderers differ in
    /// which they name (rygel takes `video/mpeg` and refuses `video/mp2t` with error 714).
    static let streamTypes = ["video/mp2t", "video/vnd.dlna.mpeg-tts", "video/mpeg", "video/MP2T"]

    /// The protocol info Podium's stream is announced with to this renderer: the first of its own
    /// `http-get` formats that is MPEG-TS; `nil` when it plays none.
    public var streamFormat: StreamFormat? {
        for type in Self.streamTypes {
            let match = sinkProtocols.first { entry in
                let fields = entry.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                return fields.count == 4 && fields[0] == "http-get" && fields[2].lowercased() == type.lowercased()
            }
            if match != nil { return StreamFormat(mimeType: type) }
        }
        // A renderer that takes any type over HTTP takes MPEG-TS.
        if sinkProtocols.contains(where: { $0.hasPrefix("http-get:*:*:") }) {
            return StreamFormat(mimeType: "video/mpeg")
        }
        return nil
    }

    /// Whether `name` (a part of its name, any case) names it.
    public func isNamed(_ part: String) -> Bool {
        name.range(of: part, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}

/// How Podium's live MPEG-TS is announced: its MIME type, and DLNA's flags for a live stream
/// (no seeking, streaming transfer).
public struct StreamFormat: Sendable, Equatable {
    public var mimeType: String

    /// DLNA's fourth field: a live stream, which cannot be sought (`OP=00`), not converted
    /// (`CI=0`), sent in streaming mode, stalls allowed, DLNA 1.5.
    public static let features = "DLNA.ORG_OP=00;DLNA.ORG_CI=0;DLNA.ORG_FLAGS=01700000000000000000000000000000"

    public var protocolInfo: String { "http-get:*:\(mimeType):\(Self.features)" }
}

extension Renderer {
    /// Reads the renderer an SSDP answer points to: its description, then its ConnectionManager's
    /// sink protocols. Blocks (each request at most 3 s).
    /// - Throws: in one line, for a description that cannot be fetched or is refused (a redirect,
    ///   over 1 MiB, a DTD), or a renderer with no AVTransport.
    static func read(_ answer: SSDPAnswer) throws(CastFailure) -> Renderer {
        guard let location = HTTPAddress(answer.location) else {
            throw CastFailure("\(answer.responder): its description is not at an http:// address")
        }
        let description: XMLTree
        do {
            let response = try HTTPExchange(method: "GET", address: location).perform()
            guard response.status == 200 else { throw HTTPExchange.Failure(description: "HTTP \(response.status)") }
            description = try XMLTree(parsing: response.body)
        } catch {
            throw CastFailure("\(answer.responder): its description \(answer.location): \(error)")
        }
        let base = description.value("URLBase").flatMap(HTTPAddress.init) ?? location
        var avTransport: (HTTPAddress, String)?
        var connectionManager: (HTTPAddress, String)?
        for service in description.all("service") {
            guard let type = service.value("serviceType"), let control = service.value("controlURL"),
                  let address = base.resolving(control), address.host == answer.responder else { continue }
            if type.contains(":service:AVTransport:") && avTransport == nil { avTransport = (address, type) }
            if type.contains(":service:ConnectionManager:") && connectionManager == nil {
                connectionManager = (address, type)
            }
        }
        let name = description.value("friendlyName") ?? answer.responder
        guard let avTransport else {
            throw CastFailure("\(name) (\(answer.responder)) has no AVTransport to play with")
        }
        var sinks: [String] = []
        if let connectionManager {
            let answer = try? SOAPAction(service: connectionManager.1, action: "GetProtocolInfo")
                .perform(at: connectionManager.0)
            sinks = (answer?["Sink"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return Renderer(
            name: name, manufacturer: description.value("manufacturer") ?? "",
            model: description.value("modelName") ?? "",
            udn: description.value("UDN") ?? answer.usn, address: answer.responder, localAddress: answer.local,
            location: answer.location, accepts: Self.mimeTypes(of: sinks), sinkProtocols: sinks,
            avTransport: avTransport.0, avTransportType: avTransport.1)
    }

    /// The MIME types of the `http-get` entries, each once, in order.
    private static func mimeTypes(of sinks: [String]) -> [String] {
        var types: [String] = []
        for entry in sinks {
            let fields = entry.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0] == "http-get", !types.contains(String(fields[2])) else { continue }
            types.append(String(fields[2]))
        }
        return types
    }

    /// The renderers on the networks this machine is on, each once, found within `wait`. Blocks.
    /// - Parameter until: ends the search at the first renderer it is true of (the one a cast
    ///   asks for), rather than after `wait`.
    /// - Returns: the renderers, and what was refused or could not be read, one line each.
    public static func discover(wait: Duration = .milliseconds(1500), until: (Renderer) -> Bool = { _ in false })
        -> (renderers: [Renderer], refused: [String]) {
        var renderers: [Renderer] = []
        var refused: [String] = []
        // Each description is read as its answer comes, so the one asked for ends the search.
        let search = SSDPSearch.search(wait: wait) { answer in
            do throws(CastFailure) {
                let renderer = try read(answer)
                guard !renderers.contains(where: { $0.udn == renderer.udn }) else { return false }
                renderers.append(renderer)
                return until(renderer)
            } catch {
                refused.append(error.message)
                return false
            }
        }
        return (renderers, search.refused + refused)
    }
}

/// Why a renderer could not be found, read or played to, in one line.
public struct CastFailure: Error, CustomStringConvertible {
    public var message: String
    /// The renderer's own UPnP error code, when it answered with one (a refusal, not an absence).
    public var code: Int?
    public init(_ message: String, code: Int? = nil) {
        self.message = message
        self.code = code
    }
    public var description: String { message }
}
