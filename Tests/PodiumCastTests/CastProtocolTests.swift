import Foundation
@testable import PodiumCast
import Testing

/// What a renderer on the LAN says, read in-process: answers to the search, descriptions,
/// control answers, and the refusals of what a hostile one could send.
struct CastProtocolTests {
    let answer = "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nLOCATION: http://10.0.0.7:49494/description.xml\r\n"
        + "ST: urn:schemas-upnp-org:device:MediaRenderer:1\r\n"
        + "USN: uuid:tv-1::urn:schemas-upnp-org:device:MediaRenderer:1\r\n\r\n"

    @Test func anAnswerIsKeptOnlyWhenItsDescriptionIsOnTheHostThatAnswered() {
        let kept = SSDPSearch.answer(answer, responder: "10.0.0.7", local: "10.0.0.1")
        #expect(kept == .kept(SSDPAnswer(location: "http://10.0.0.7:49494/description.xml", responder: "10.0.0.7",
                                         local: "10.0.0.1",
                                         usn: "uuid:tv-1::urn:schemas-upnp-org:device:MediaRenderer:1")))
        // Another host, a name rather than the address, HTTPS: refused, nothing fetched.
        for location in ["http://10.0.0.8:49494/d.xml", "http://tv.local:80/d.xml", "https://10.0.0.7/d.xml"] {
            let hostile = answer.replacingOccurrences(of: "http://10.0.0.7:49494/description.xml", with: location)
            guard case .refused(let reason) = SSDPSearch.answer(hostile, responder: "10.0.0.7",
                                                                local: "10.0.0.1") else {
                Issue.record("\(location) was not refused")
                continue
            }
            #expect(reason.contains("10.0.0.7") && reason.contains("not followed"))
        }
        #expect(SSDPSearch.answer("NOTIFY * HTTP/1.1\r\n\r\n", responder: "10.0.0.7", local: "10.0.0.1") == .ignored)
    }

    @Test func answersAreBoundedAndRedirectsNotFollowed() throws {
        let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello trailing".utf8)
        #expect(try HTTPExchange.parse(ok, limit: 100).body == Array("hello".utf8))
        let chunked = Array(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8)
        #expect(try HTTPExchange.parse(chunked, limit: 100).body == Array("hello world".utf8))
        let redirect = Array("HTTP/1.1 302 Found\r\nLocation: http://10.0.0.9/x\r\n\r\n".utf8)
        let refused = #expect(throws: HTTPExchange.Failure.self) { try HTTPExchange.parse(redirect, limit: 100) }
        #expect(refused?.description.contains("redirects") == true)
        let large = Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + [UInt8](repeating: 65, count: 2_000)
        #expect(throws: HTTPExchange.Failure.self) { try HTTPExchange.parse(large, limit: 1_000) }
    }

    @Test func aDescriptionWithEntitiesIsNotRead() {
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE root [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <root><device><friendlyName>&b;</friendlyName></device></root>
            """
        #expect(throws: XMLTree.Failure.self) { try XMLTree(parsing: Array(laughs.utf8)) }
        #expect(throws: XMLTree.Failure.self) { try XMLTree(parsing: Array("<root><open></root>".utf8)) }
    }

    @Test func aDescriptionIsReadWithoutItsPrefixes() throws {
        let description = """
            <?xml version="1.0"?>
            <root xmlns="urn:schemas-upnp-org:device-1-0"><device><friendlyName>Living Room &amp; Hall</friendlyName>
            <serviceList><service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType>
            <controlURL>/upnp/control/rendertransport1</controlURL></service></serviceList></device></root>
            """
        let tree = try XMLTree(parsing: Array(description.utf8))
        #expect(tree.value("friendlyName") == "Living Room & Hall")
        #expect(tree.all("service").first?.value("controlURL") == "/upnp/control/rendertransport1")
        let soap = """
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>
            <u:GetTransportInfoResponse xmlns:u="urn:schemas-upnp-org:service:AVTransport:1">
            <CurrentTransportState>PLAYING</CurrentTransportState></u:GetTransportInfoResponse></s:Body></s:Envelope>
            """
        #expect(try XMLTree(parsing: Array(soap.utf8)).value("CurrentTransportState") == "PLAYING")
    }

    @Test func controlURLsResolveAgainstTheDescription() throws {
        let base = try #require(HTTPAddress("http://10.0.0.7:49494/upnp/description.xml"))
        #expect(base.resolving("/upnp/control/a")?.description == "http://10.0.0.7:49494/upnp/control/a")
        #expect(base.resolving("control/a")?.description == "http://10.0.0.7:49494/upnp/control/a")
        #expect(base.resolving("http://10.0.0.8:1/x")?.host == "10.0.0.8")
        #expect(HTTPAddress("http://tv.local/x") == nil && HTTPAddress("http://10.0.0.7:0/") == nil)
    }

    @Test func anActionsArgumentsAreEscaped() {
        let action = SOAPAction(service: "urn:schemas-upnp-org:service:AVTransport:1", action: "SetAVTransportURI",
                                arguments: [("InstanceID", "0"),
                                            ("CurrentURIMetaData", "<DIDL-Lite a=\"1\">&</DIDL-Lite>")])
        #expect(action.envelope.contains(
            "<CurrentURIMetaData>&lt;DIDL-Lite a=&quot;1&quot;&gt;&amp;&lt;/DIDL-Lite&gt;"))
        #expect(action.envelope.contains(
            "<u:SetAVTransportURI xmlns:u=\"urn:schemas-upnp-org:service:AVTransport:1\">"))
    }

    /// The stream goes out as the first MPEG-TS type the renderer lists of Podium's (rygel lists
    /// `video/mpeg` and refuses `video/mp2t`); a renderer of none is told apart.
    @Test func theStreamsTypeIsOneTheRendererNames() throws {
        let control = try #require(HTTPAddress("http://10.0.0.7/c"))
        func renderer(_ sinks: [String]) -> Renderer {
            Renderer(name: "TV", manufacturer: "", model: "", udn: "uuid:1", address: "10.0.0.7",
                     localAddress: "10.0.0.1", location: "http://10.0.0.7/d.xml", accepts: [], sinkProtocols: sinks,
                     avTransport: control, avTransportType: "urn:x")
        }
        #expect(renderer(["http-get:*:audio/mpeg:*", "http-get:*:video/mpeg:*"]).streamFormat?.mimeType == "video/mpeg")
        #expect(renderer(["http-get:*:video/mpeg:*", "http-get:*:video/mp2t:*"]).streamFormat?.mimeType == "video/mp2t")
        #expect(renderer(["http-get:*:*:*"]).streamFormat?.mimeType == "video/mpeg")
        #expect(renderer(["http-get:*:video/mp4:*", "rtsp-rtp-udp:*:video/mpeg:*"]).streamFormat == nil)
        #expect(renderer(["http-get:*:video/mpeg:*"]).isNamed("tv") && !renderer([]).isNamed("radio"))
        #expect(StreamFormat(mimeType: "video/mpeg").protocolInfo.hasPrefix("http-get:*:video/mpeg:DLNA.ORG_OP=00;"))
    }
}
