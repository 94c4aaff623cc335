import Foundation
import PodiumTestSupport
import Testing

/// The room's TV: `gmediarender` and rygel's playbin (UPnP AV renderers of two stacks, libupnp
/// and GUPnP) in a network namespace of the test's, each window on a display of its own.
/// `podium cast` finds it; `--to cast:NAME` serves it the screen and it shows it (pixels read back
/// from its window); a TV switched off and on mid-run is cast to again; a name no TV has, and a
/// renderer that points elsewhere, are refused in one line. Podium runs in the tests' process.
@Suite(.serialized, .programThreads) struct CastTests {
    /// The source: a solid colour the TV's window must show (BGR).
    static let colour: (UInt8, UInt8, UInt8) = (40, 190, 230)

    /// A TV in a namespace of its own, showing on a display of its own, and a source display
    /// painted `colour`.
    private struct Room {
        let namespace: NetworkNamespace
        let screen: XvfbServer
        let tv: MediaRenderer
        let source: XvfbServer

        init(_ kind: MediaRenderer.Kind = .gmediarender) throws {
            namespace = try NetworkNamespace()
            try namespace.routeMulticast()
            screen = try XvfbServer(width: 640, height: 480)
            tv = try MediaRenderer(kind, name: "Podium Test TV \(Int.random(in: 100...999))", display: screen.display,
                                   namespace: namespace)
            source = try XvfbServer(width: 320, height: 240)
            try Painter(display: source.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: CastTests.colour)
        }

        /// `podium ARGUMENTS` on the source display.
        func podium(_ arguments: [String]) -> ProgramRun {
            ProgramRun.start(arguments, display: source.display)
        }

        /// How many of the TV screen's pixels are the source's colour, give or take a lossy step.
        func pixelsShowingTheSource() throws -> Int {
            let screen = try Tools.grabScreen(self.screen.display, width: 640, height: 480)
            var count = 0
            for offset in stride(from: 0, to: screen.count, by: 4)
            where abs(Int(screen[offset]) - Int(colour.0)) < 24 && abs(Int(screen[offset + 1]) - Int(colour.1)) < 24
                && abs(Int(screen[offset + 2]) - Int(colour.2)) < 24 {
                count += 1
            }
            return count
        }

        var colour: (UInt8, UInt8, UInt8) { CastTests.colour }

        /// Waits until the TV's window shows the source over at least `pixels` pixels.
        func waitForPicture(pixels: Int = 20_000, timeout: TimeInterval = 15) async throws {
            let deadline = Date().addingTimeInterval(timeout)
            var shown = 0
            while Date() < deadline {
                shown = try pixelsShowingTheSource()
                if shown >= pixels { return }
                try await Task.sleep(for: .seconds(0.25))
            }
            throw TestFailure("the TV showed the source on \(shown) pixels; its log: \(tv.log.suffix(1_500))")
        }
    }

    @Test(arguments: [MediaRenderer.Kind.gmediarender, .rygel])
    func theTVIsListedWithWhatItPlays(_ kind: MediaRenderer.Kind) async throws {
        let room = try Room(kind)
        let listed = try await room.podium(["cast", "--json"]).wait(timeout: 30)
        #expect(listed.status == 0, "\(listed.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        let tv = try #require(json?.first { $0["name"] as? String == room.tv.name }, "\(listed.stdout)")
        #expect(tv["address"] as? String == room.namespace.address)
        // Served from this side's address on the link that reaches it (it has two there).
        #expect([room.namespace.hostAddress, room.namespace.serverAddress]
            .contains(tv["localAddress"] as? String ?? ""))
        #expect(tv["streamType"] as? String == "video/mpeg", "\(kind) names video/mpeg, not video/mp2t")
        #expect((tv["accepts"] as? [String])?.contains("video/mpeg") == true)
        let text = try await room.podium(["cast"]).wait(timeout: 30)
        #expect(text.stdout.contains("\(room.tv.name)  (") && text.stdout.contains("(\(room.namespace.address))")
                || text.stdout.contains(", \(room.namespace.address))"), "\(text.stdout)")
        #expect(text.stdout.contains("plays Podium's stream as video/mpeg"), "\(text.stdout)")
    }

    @Test(arguments: [MediaRenderer.Kind.gmediarender, .rygel])
    func theTVShowsTheScreenAndStopsAtTheEnd(_ kind: MediaRenderer.Kind) async throws {
        let room = try Room(kind)
        #expect(try room.pixelsShowingTheSource() < 100, "the TV shows nothing before the cast")
        let run = room.podium(["cast", "test tv", "--fps", "15", "--duration", "8s"])
        try await run.waitForStderr(containing: "plays http://10.213.", timeout: 20)
        try await room.waitForPicture()
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("'\(room.tv.name)' (\(room.namespace.address)) plays"), "\(result.stderr)")
        if kind == .gmediarender {
            try room.tv.waitForLog("TransportState: PLAYING")
            // Told to stop at the end, the TV plays nothing more.
            try room.tv.waitForLog("TransportState: STOPPED", timeout: 10)
        }
    }

    @Test func aTVSwitchedOffAndOnIsCastToAgain() async throws {
        let room = try Room()
        let run = room.podium(["stream", "--fps", "15", "--duration", "40s", "--to", "cast:Podium Test"])
        try await run.waitForStderr(containing: "plays http://", timeout: 20)
        try await room.waitForPicture()
        room.tv.stop()
        try await run.waitForStderr(containing: "went away", timeout: 15)
        try room.tv.start()
        try await run.waitForStderr(containing: "plays http://", times: 2, timeout: 15)
        try await room.waitForPicture()
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "went away").count == 2, "said once: \(result.stderr)")
    }

    @Test func noTVOfThatNameIsRefusedNamingThoseFound() async throws {
        let room = try Room()
        let folder = try Tools.temporaryFolder()
        let recording = folder.appendingPathComponent("kept.mkv").path
        let result = try await room.podium(["stream", "--to", "cast:no such set", "--to", recording])
            .wait(timeout: 30)
        #expect(result.status == 69, "\(result.stderr)")
        let refusal = "--to 'cast:no such set': no TV named 'no such set' answers; found '\(room.tv.name)'"
        #expect(result.stderr.contains(refusal), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: recording), "nothing is created")
    }

    /// A device on the LAN that answers hostile: a description on another host than the one that
    /// answered (a renderer is never made to send anyone to a third machine), a redirect, a
    /// description over 1 MiB, entities to expand. Each is refused in one line, nothing followed.
    @Test(arguments: [
        ("elsewhere", "answered with a description elsewhere (http://192.0.2.1:80/evil.xml); not followed"),
        ("redirect", "it redirects (HTTP 302); not followed"),
        ("huge", "its answer is over 1024 KiB"),
        ("entities", "it declares a DTD (entities), which UPnP never needs; not read"),
    ])
    func aHostileAnswerIsRefused(mode: String, reason: String) async throws {
        let namespace = try NetworkNamespace()
        try namespace.routeMulticast()
        let liar = try namespace.start("/usr/bin/python3", ["-c", Self.liar, namespace.address, mode])
        defer { liar.signal(SIGKILL) }
        try liar.waitForStderr(containing: "answering")
        let listed = try await ProgramRun.podium(["cast"], timeout: 30)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("refused: ") && listed.stderr.contains(reason), "\(listed.stderr)")
        #expect(!listed.stdout.contains("Evil"), "\(listed.stdout)")
        #expect(listed.stdout.contains("no TV answered"), "\(listed.stdout)")
    }

    /// A renderer that plays no MPEG-TS (gmediarender told to play sound alone) is refused before
    /// anything is opened, naming what it plays.
    @Test func aTVThatPlaysNoneOfPodiumsFormatsIsRefused() async throws {
        let namespace = try NetworkNamespace()
        try namespace.routeMulticast()
        let screen = try XvfbServer(width: 320, height: 240)
        let radio = try MediaRenderer(name: "Podium Test Radio", display: screen.display, namespace: namespace,
                                      arguments: ["--mime-filter", "audio"])
        let result = try await ProgramRun.podium(["stream", "--to", "cast:test radio"], display: screen.display,
                                                 timeout: 30)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("'\(radio.name)' plays none of Podium's formats (MPEG-TS); it takes audio/"),
                "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Answers every SSDP search as a renderer would, and then, by its mode: a `LOCATION` on a
    /// host that did not answer, or its own, whose description redirects, is 2 MiB, or declares
    /// entities.
    static let liar = """
        import http.server, socket, struct, sys, threading
        address, mode = sys.argv[1], sys.argv[2]
        class Description(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if mode == "redirect":
                    self.send_response(302); self.send_header("Location", "http://192.0.2.1/d.xml"); self.end_headers()
                    return
                body = (b"<root><device><friendlyName>Evil</friendlyName>" + b"x" * (2 << 20) + b"</device></root>"
                        if mode == "huge" else
                        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                        b"<root><device><friendlyName>Evil &b;</friendlyName></device></root>")
                self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
                self.wfile.write(body)
            def log_message(self, *arguments): pass
        server = http.server.ThreadingHTTPServer((address, 0), Description)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        location = ("http://192.0.2.1:80/evil.xml" if mode == "elsewhere"
                    else "http://%s:%d/description.xml" % (address, server.server_address[1]))
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("", 1900))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     struct.pack("4s4s", socket.inet_aton("239.255.255.250"), socket.inet_aton(address)))
        print("answering", file=sys.stderr, flush=True)
        while True:
            data, peer = s.recvfrom(2048)
            if data.startswith(b"M-SEARCH"):
                s.sendto(("HTTP/1.1 200 OK\\r\\nLOCATION: %s\\r\\n"
                          "ST: urn:schemas-upnp-org:device:MediaRenderer:1\\r\\nUSN: uuid:evil\\r\\n\\r\\n"
                          % location).encode(), peer)
        """
}
