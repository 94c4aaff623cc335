import Foundation
import PodiumTestSupport
import Testing

/// The viewer's server as an attacker on the room's network tries it, with real clients against
/// the real binary: connections held open, requests that name another host.
extension WebViewerTests {
    /// 300 idle connections and 40 that send a byte a second, from 30 addresses, against a run that
    /// may open 256 descriptors: each is closed within the few seconds a request head may take,
    /// one address holds at most 40 (the 32 viewers it may have, and 8), and a viewer with the
    /// right token is served meanwhile.
    @Test func heldConnectionsAreClosedAndAViewerIsServedMeanwhile() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 20,
                               limit: "ulimit -n 256")
        let hold = Tools.repository.appendingPathComponent("Scripts/hold-connections").path
        let reports = { (result: CommandResult) -> [[String: Double]] in
            result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Double]
            }
        }
        // One address alone first, so that the cap in all (80 here) leaves its own cap to act: held
        // until the deadline, all 80 would last past two seconds.
        let one = try Tools.run(hold, ["127.0.0.1", "\(port)", "--idle", "80", "--slow", "0",
                                       "--seconds", "4", "--from", "127.0.0.5"])
        let single = reports(one)
        #expect(single.count >= 3 && single.allSatisfy { ($0["held"] ?? 99) <= 40 },
                "one address holds 40 at most: \(single)")
        let addresses = (10..<40).map { "127.0.0.\($0)" }.joined(separator: ",")
        let many = try Tools.start(hold, ["127.0.0.1", "\(port)", "--idle", "300", "--slow", "40",
                                          "--seconds", "10", "--from", addresses])
        Thread.sleep(forTimeInterval: 3)
        let viewer = try Tools.run(Tools.repository.appendingPathComponent("Scripts/viewer-client").path,
                                   [served.link, "--seconds", "2"])
        #expect(viewer.stdout.hasPrefix("HTTP/1.1 101"), "\(viewer.stdout) \(viewer.stderr)")
        let report = viewer.stdout.split(separator: "\n").last ?? ""
        let frames = try JSONSerialization.jsonObject(with: Data(report.utf8))
        #expect(((frames as? [String: Any])?["frames"] as? Int ?? 0) > 0, "\(viewer.stdout)")

        let spread = reports(try many.wait(timeout: 30))
        let last = try #require(spread.last)
        // None outlives the deadline (5 s, and a second's report); all 340 were closed at least once.
        #expect(spread.allSatisfy { ($0["longest"] ?? 99) <= 6.5 }, "\(spread)")
        #expect((last["closed"] ?? 0) + (last["refused"] ?? 0) >= 340, "\(last)")
        let run = try served.run.wait(timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("viewers 1 (most 1 at once)"), "\(run.stderr)")
    }

    /// A page of another site whose name it made resolve to us (DNS rebinding) sends its own name
    /// as `Host` (and `Origin`): it is answered 421 and never upgraded, on a run with no token.
    @Test func onlyTheServersOwnNamesAreAnswered() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let served = try serve("http://:\(port)?token=off", display: server.display, seconds: 6)
        let script = """
            import socket, sys
            port = int(sys.argv[1])
            for host in sys.argv[2:]:
                for path in ("/", "/stream"):
                    upgrade = ("Connection: Upgrade\\r\\nUpgrade: websocket\\r\\nSec-WebSocket-Version: 13\\r\\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n") if path == "/stream" else ""
                    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
                        connection.sendall(f"GET {path} HTTP/1.1\\r\\nHost: {host}\\r\\nOrigin: http://{host}\\r\\n"
                                           f"{upgrade}\\r\\n".encode())
                        head = connection.recv(4096).split(b"\\r\\n")[0].decode()
                    print(host, path, head.split(" ")[1])
            """
        let name = try Tools.run("hostname", []).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let hosts = ["rebound.example:\(port)", "127.0.0.1:\(port)", "localhost:\(port)", "\(name):\(port)",
                     "127.0.0.1.nip.io:\(port)"]
        let result = try Tools.run("python3", ["-c", script, "\(port)"] + hosts)
        #expect(result.stdout.split(separator: "\n").map { $0.split(separator: " ").last ?? "" } ==
                ["421", "400", "200", "101", "200", "101", "200", "101", "421", "400"],
                "\(result.stdout) \(result.stderr)")
        #expect(try served.run.wait(timeout: 30).status == 0)
    }
}

extension WebViewerTests {
    /// A terminal is often on the screen the room sees: the remote's link and code are not drawn
    /// there but written to a file of the user's alone, which the run removes as it ends;
    /// `--show-remote` draws them. Where stderr is not a terminal the link is in the run's lines
    /// (`theRemoteOnAPhoneActsOnTheRunWithinATenthOfASecond` reads it there).
    @Test(arguments: [false, true]) func theRemotesLinkStaysOffTheSharedScreen(shown: Bool) throws {
        let server = try XvfbServer(width: 320, height: 240)
        let command = "\(Tools.podium.path) stream --display \(server.display) -t 6s --remote "
            + "--to http://0.0.0.0:\(Tools.freePort())" + (shown ? " --show-remote" : "")
        let terminal = try TerminalSession(command)
        try terminal.waitFor("viewers open")
        Thread.sleep(forTimeInterval: 1)
        let screen = terminal.screen
        #expect(screen.contains("/remote?token=") == shown, "\(screen)")
        #expect(screen.contains("▀") || screen.contains("▄"), "the viewers' code is drawn either way")
        if !shown {
            let line = try #require(screen.split(separator: "\n").first { $0.contains("its link and QR code are in") })
            let path = try #require(line.split(separator: " ").first { $0.hasPrefix("/") && $0.hasSuffix(".txt") })
            let attributes = try FileManager.default.attributesOfItem(atPath: String(path))
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let text = try String(contentsOfFile: String(path), encoding: .utf8)
            #expect(text.contains("/remote?token=") && text.contains("▀"), "\(text)")
            #expect(try terminal.ending().status == 0)
            #expect(!FileManager.default.fileExists(atPath: String(path)), "removed as the run ended")
        } else {
            #expect(try terminal.ending().status == 0)
        }
    }
}

extension WebViewerTests {
    /// The certificate Podium makes names this machine as the room reaches it: its host name (and
    /// `.local`), its addresses, `?name=`'s; it is kept while those stay, and made again (naming
    /// the old ones too) when one is new.
    @Test func theCertificateNamesThisMachineAsTheRoomReachesIt() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let config = try Tools.temporaryFolder()
        let certificate = config.appendingPathComponent("podium/viewer-certificate.pem").path
        let run = { (viewer: String) throws -> String in
            let result = try Tools.podium(["stream", "-t", "1s", "--to", viewer], display: server.display,
                                          environment: ["XDG_CONFIG_HOME": config.path])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            return lines.firstIndex { $0.contains("SHA-256 fingerprint") }.map { String(lines[$0 + 1]) } ?? ""
        }
        let names = { () throws -> String in
            try Tools.run("openssl", ["x509", "-in", certificate, "-noout", "-ext", "subjectAltName"]).stdout
        }
        let host = try Tools.run("hostname", []).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let lan = try Tools.run("hostname", ["-I"]).stdout.split(whereSeparator: \.isWhitespace)
            .first { !$0.contains(":") }.map(String.init) ?? "127.0.0.1"
        let first = try run("https://0.0.0.0:\(Tools.freePort())")
        let named = try names()
        for expected in ["DNS:localhost", "DNS:\(host)", "DNS:\(host).local", "IP Address:127.0.0.1",
                         "IP Address:\(lan)"] {
            #expect(named.contains(expected), "\(expected): \(named)")
        }
        #expect(try run("https://0.0.0.0:\(Tools.freePort())") == first, "kept while the names stay")
        let renamed = try run("https://0.0.0.0:\(Tools.freePort())?name=room.lan")
        #expect(renamed != first && !renamed.isEmpty)
        let again = try names()
        #expect(again.contains("DNS:room.lan") && again.contains("IP Address:\(lan)"), "\(again)")
    }
}

extension WebViewerTests {
    /// Opened by its link, the page keeps its token in an `HttpOnly`, `SameSite=Strict` cookie and
    /// takes it out of its address: a reload plays with the cookie alone, and the page's script
    /// cannot read it.
    @Test func thePageKeepsItsTokenInACookieAndOutOfItsAddress() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 20,
                               more: ["--constant-fps"])
        defer { _ = try? served.run.interrupt() }
        let token = String(served.link.split(separator: "=").last ?? "")
        let headers = try Tools.run("curl", ["-s", "-D", "-", "-o", "/dev/null", served.link]).stdout.lowercased()
        #expect(headers.contains("set-cookie: podium-viewer-\(port)=\(token.lowercased())")
                && headers.contains("httponly") && headers.contains("samesite=strict"), "\(headers)")
        // Reloaded once it played (sessionStorage says it was), the page plays again from its cookie.
        let reloadOnce = "(sessionStorage.reloaded ? true : (sessionStorage.reloaded = '1', location.reload(), false))"
        let page = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path, [
            served.link + "&rendition=240p", "--timeout", "30",
            "--until", "window.podium && window.podium.painted >= 5 && \(reloadOnce)",
            "--value", "({href: location.href, cookie: document.cookie, painted: window.podium.painted, "
                + "reloaded: sessionStorage.reloaded})",
        ], timeout: 60)
        #expect(page.status == 0, "\(page.stdout) \(page.stderr)")
        let value = (try? JSONSerialization.jsonObject(with: Data(page.stdout.utf8))) as? [String: Any] ?? [:]
        #expect(value["href"] as? String == "http://127.0.0.1:\(port)/?rendition=240p", "\(value)")
        #expect(value["cookie"] as? String == "", "HttpOnly: the script reads no token")
        #expect(value["reloaded"] as? String == "1" && (value["painted"] as? Int ?? 0) >= 5, "\(value)")
        // The token is in its link, once, and nowhere else: not in the statistics of the page it played.
        let ended = try served.run.interrupt()
        let stats = try String(contentsOfFile: served.stats, encoding: .utf8)
        #expect(stats.contains("\"watching\"") && !stats.contains(token), "no token in the statistics")
        let lines = ended.stderr.split(separator: "\n").filter { $0.contains(token) }
        #expect(lines.count == 1 && lines.first?.contains("viewers open") == true, "\(ended.stderr)")
    }
}
