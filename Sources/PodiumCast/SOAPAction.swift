import PodiumCore

/// One UPnP control action (SOAP 1.1 over HTTP POST): `SetAVTransportURI`, `Play`, `Stop`,
/// `GetTransportInfo`, `GetProtocolInfo`.
struct SOAPAction {
    /// The service's type (`urn:schemas-upnp-org:service:AVTransport:1`).
    var service: String
    var action: String
    /// The arguments, in the order the service declares them.
    var arguments: [(String, String)] = []

    /// The envelope, its arguments' text escaped.
    var envelope: String {
        let fields = arguments.map { "<\($0.0)>\(XMLTree.escaped($0.1))</\($0.0)>" }.joined()
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" \
            s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>\
            <u:\(action) xmlns:u="\(service)">\(fields)</u:\(action)></s:Body></s:Envelope>
            """
    }

    /// Calls the action at `control`. Blocks (at most `timeout`).
    /// - Returns: the answer's arguments by name.
    /// - Throws: the renderer's UPnP error (code and description), or why it did not answer.
    func perform(at control: HTTPAddress, timeout: Duration = .seconds(3)) throws(CastFailure) -> [String: String] {
        var exchange = HTTPExchange(method: "POST", address: control)
        exchange.headers = [("Content-Type", "text/xml; charset=\"utf-8\""), ("SOAPACTION", "\"\(service)#\(action)\"")]
        exchange.body = Array(envelope.utf8)
        exchange.timeout = timeout
        exchange.limit = 256 * 1024
        let response: HTTPExchange.Response
        let answer: XMLTree
        do {
            response = try exchange.perform()
            answer = try XMLTree(parsing: response.body)
        } catch {
            throw CastFailure("\(action): \(error)")
        }
        if let code = answer.value("errorCode") {
            throw CastFailure("\(action): UPnP error \(code)"
                              + (answer.value("errorDescription").map { " (\($0))" } ?? ""),
                              code: Int(code))
        }
        guard response.status == 200, let body = answer.first(action + "Response") else {
            throw CastFailure("\(action): HTTP \(response.status)")
        }
        var values: [String: String] = [:]
        for field in body.children { values[field.name] = field.text }
        return values
    }
}
