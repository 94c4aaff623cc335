import ArgumentParser
import Foundation
import PodiumCore
import PodiumWebRTC

extension Podium {
    /// `podium whip-check`: WHIP's offer and answer, ICE and DTLS against an endpoint, with no
    /// pictures sent: what a person debugging a WHIP server wants to know first.
    struct WHIPCheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "whip-check",
            abstract: "Check a WHIP endpoint: offer H.264 and Opus, take its answer, connect ICE and DTLS, say what "
                + "was negotiated, and end the session, sending no pictures.",
            usage: "podium whip-check <whip+https://host/path> [--ice-server <url> …]",
            discussion: """
                The offer is POSTed as WHIP (RFC 9725) says, with ?token= sent as a Bearer \
                token (never shown); the answer's codecs, whether the endpoint takes candidates \
                trickled after the offer (those gathered later are PATCHed to it then), the time \
                ICE and DTLS took and the candidates they settled on are printed, then the \
                session's resource is deleted. \
                The exit status is 0 when all of it worked, 69 when the endpoint refused (its \
                HTTP status is said) or the connection did not come up.

                Examples:
                  podium whip-check 'whip+https://sfu.example.com/whip/talk?token=T'
                  podium whip-check whip+https://HOST/whip/talk --ice-server stun://HOST:3478
                  podium whip-check whip+http://127.0.0.1:8889/whip/room
                """
        )

        @Argument(help: ArgumentHelp("The WHIP endpoint: whip+https:// or whip+http://, ?token= for a Bearer token.",
                                     valueName: "url"))
        var url: String

        @Option(name: .customLong("ice-server"),
                help: ArgumentHelp("A STUN or TURN server: stun:host[:port], turn:user:pass@host[:port] "
                                   + "(repeatable).", valueName: "url"),
                transform: parsed(WHIPEndpoint.iceServer(parsing:)))
        var iceServers: [String] = []

        func validate() throws {
            do {
                _ = try WHIPEndpoint(parsing: url)
            } catch {
                throw ValidationError("'\(URLText.redacted(url))': \(error.reason)")
            }
        }

        func run() async throws {
            do {
                try await check()
            } catch {
                // Whatever did not work, the endpoint is not usable as it is.
                throw PodiumError(.unavailable, error.message)
            }
        }

        private func check() async throws(PodiumError) {
            guard var endpoint = try? WHIPEndpoint(parsing: url) else {
                throw .usage("'\(URLText.redacted(url))' is not a WHIP endpoint")
            }
            endpoint.iceServers = iceServers
            let servers = endpoint.iceServers
            let (peer, offer) = try await onOwnThread("podium-webrtc") { () throws(PodiumError) in
                let peer = try WebRTCPeer(iceServers: servers)
                guard let offer = try peer.makeOffer() else { throw .software("WebRTC made no offer") }
                return (peer, offer)
            }
            let session = try await WHIPSession.offer(offer, to: endpoint)
            Console.say("\(endpoint) answered in \(session.milliseconds) ms; the session is "
                        + (session.resource.map { "\($0.path)" } ?? "at no resource (no Location)"))
            for medium in SDPSummary(sdp: session.answer).media {
                Console.say("  \(medium)")
            }
            Console.say(session.trickles ? "it takes candidates trickled after the offer (Accept-Patch)"
                        : "it takes no trickled candidates: the offer carries those gathered within "
                        + "\(WebRTCPeer.gatherMilliseconds / 1_000) s")
            let answer = session.answer
            do {
                let (connection, trickled) = try await onOwnThread("podium-webrtc") { () throws(PodiumError) in
                    let trickle = Trickle(session: session, offer: offer)
                    try peer.accept(answer: answer)
                    let connection = try peer.connect(trickle: trickle.map { trickle in trickle.send })
                    return (connection, trickle?.summary)
                }
                Console.say("ICE connected \(connection.iceMilliseconds) ms after the answer (\(connection.local) to "
                            + "\(connection.remote)); DTLS done at \(connection.dtlsMilliseconds) ms")
                if let trickled { Console.say(trickled) }
            } catch {
                if let status = await session.end() { Console.say("deleted the session (\(status))") }
                throw error
            }
            let status = await session.end()
            Console.say(status.map { "deleted the session (\($0))" } ?? "the session had no resource to delete")
        }
    }
}
