import Foundation
import PodiumCore
import PodiumWebRTC
import Testing

/// WHIP's endpoint as typed (the token apart and never shown), the summary of an answer, and the
/// fragment that trickles late candidates.
struct WHIPEndpointTests {
    @Test func theTokenBecomesABearerAndIsNeverShown() throws {
        let endpoint = try WHIPEndpoint(parsing: "whip+https://sfu.example.com:8443/whip/talk?token=s3cret&room=2")
        #expect(endpoint.url.absoluteString == "https://sfu.example.com:8443/whip/talk?room=2")
        #expect(endpoint.token == "s3cret")
        #expect(!endpoint.description.contains("s3cret") && endpoint.description.hasPrefix("whip+https://"))
        #expect(try WHIPEndpoint(parsing: "WHIP+HTTP://127.0.0.1:8889/whip/room").token == nil)
        for bad in ["https://host/whip", "whip://host/x", "whip+https://", "whip+https://host/x?token="] {
            #expect(throws: OptionParseError.self, "\(bad)") { try WHIPEndpoint(parsing: bad) }
        }
    }

    @Test func anAnswersCodecsAreSummed() {
        let answer = """
            v=0\r
            o=- 1 2 IN IP4 127.0.0.1\r
            m=video 9 UDP/TLS/RTP/SAVPF 96 97\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1;profile-level-id=42e01f\r
            a=rtpmap:97 rtx/90000\r
            a=recvonly\r
            m=audio 9 UDP/TLS/RTP/SAVPF 111\r
            a=rtpmap:111 opus/48000/2\r
            a=recvonly\r
            m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r
            """
        #expect(SDPSummary(sdp: answer).media.map(\.description) == [
            "video H264/90000 (payload 96, packetization-mode=1;profile-level-id=42e01f), recvonly",
            "audio opus/48000/2 (payload 111), recvonly",
            "application refused",
        ])
    }

    /// Candidates gathered late go as an SDP fragment that names the offer's credentials and its
    /// bundled m-line, and ends with `a=end-of-candidates` after the last.
    @Test func lateCandidatesGoAsAFragmentOfTheOffer() throws {
        let offer = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=ice-ufrag:Ab1\r\na=ice-pwd:secretpwd\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:video0\r\na=candidate:1 1 UDP 1 10.0.0.1 5000 typ host\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:audio1\r\n"
        let fragment = try #require(TrickleFragment(offer: offer))
        #expect(fragment.text(candidates: ["a=candidate:2 1 UDP 2 192.0.2.9 6000 typ srflx"], complete: false)
                == "a=ice-ufrag:Ab1\r\na=ice-pwd:secretpwd\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:video0\r\n"
                + "a=candidate:2 1 UDP 2 192.0.2.9 6000 typ srflx\r\n")
        #expect(fragment.text(candidates: [], complete: true).hasSuffix("a=mid:video0\r\na=end-of-candidates\r\n"))
        #expect(TrickleFragment(offer: "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\n") == nil)
    }
}
