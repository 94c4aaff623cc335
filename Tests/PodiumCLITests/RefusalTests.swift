import Foundation
@testable import PodiumCLI
import PodiumTestSupport
import Testing

/// Every refused command line, in-process: the code, the one line naming the problem, and no
/// file. The display is a shared private Xvfb, named with --display (a case's own comes after it).
/// What only the program shows (the line on stderr, its exit code), and what is refused only as the
/// run is built (an encoder that will not open): `BadInputTests`.
@Suite struct RefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var mentions: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["--region", "5000x5000+0+0"], status: 64, mentions: "--region '5000x5000+0+0'"),
        Case(arguments: ["--region", "100x100+300+200"], status: 64, mentions: "not inside"),
        Case(arguments: ["--fps", "0"], status: 64, mentions: "'0'"),
        Case(arguments: ["--fps", "-1"], status: 64, mentions: "The value '-1' is invalid for '--fps"),
        Case(arguments: ["--bitrate", "-5M"], status: 64, mentions: "The value '-5M' is invalid for '--bitrate"),
        Case(arguments: ["--keyint", "-1s"], status: 64, mentions: "The value '-1s' is invalid for '--keyint"),
        Case(arguments: ["--duration", "-1s"], status: 64, mentions: "The value '-1s' is invalid for '--duration"),
        Case(arguments: ["--frames", "-5"], status: 64, mentions: "--frames '-5'"),
        Case(arguments: ["--scale", "-1"], status: 64, mentions: "--scale '-1"),
        Case(arguments: ["--region", "-10x10+0+0"], status: 64,
             mentions: "The value '-10x10+0+0' is invalid for '--region"),
        Case(arguments: ["--fps", "abc"], status: 64, mentions: "'abc'"),
        Case(arguments: ["--fps", "1000"], status: 64, mentions: "'1000'"),
        Case(arguments: ["--fps", "60-5"], status: 64, mentions: "from the lower rate to the higher"),
        Case(arguments: ["--fps", "fast"], status: 64, mentions: "a range (5-60) or auto"),
        Case(arguments: ["--max-cpu", "0"], status: 64, mentions: "--max-cpu '0' must be more than 0"),
        Case(arguments: ["--max-cpu", "64"], status: 64, mentions: "at most the"),
        Case(arguments: ["--zoom", "3"], status: 64, mentions: "--zoom '3' must be one of 1, 2, 4"),
        Case(arguments: ["--hotkey", "nap=Ctrl+Alt+N"], status: 64, mentions: "no action 'nap'; the actions are"),
        Case(arguments: ["--hotkey", "blank=B"], status: 64, mentions: "'B' would take B from every program"),
        Case(arguments: ["--hotkey", "blank=Ctrl+Alt+Pause"], status: 64, mentions: "'pause' is not a key"),
        Case(arguments: ["--hotkey", "zoom=Ctrl+Alt+Q", "--hotkey", "pen=Ctrl+Alt+Q"], status: 64,
             mentions: "Ctrl+Alt+Q is both zoom and pen"),
        Case(arguments: ["--remote"], status: 64, mentions: "--remote: its page is served beside the browser viewer"),
        Case(arguments: ["--highlight-pointer=pink"], status: 64, mentions: "expected #RRGGBB"),
        Case(arguments: ["--highlight-pointer", "red,1000"], status: 64, mentions: "a radius of 4 to 400"),
        Case(arguments: ["--mask-window", "class:"], status: 64, mentions: "class:NAME"),
        Case(arguments: ["--mask", "popups"], status: 64, mentions: "'popups'"),
        Case(arguments: ["--window", "0x1234", "--show-region"], status: 64, mentions: "--show-region works on a"),
        Case(arguments: ["--size", "0x0"], status: 64, mentions: "'0x0'"),
        Case(arguments: ["--size", "abc"], status: 64, mentions: "'abc'"),
        Case(arguments: ["--bitrate", "lots"], status: 64, mentions: "'lots'"),
        Case(arguments: ["--keyint", "never"], status: 64, mentions: "'never'"),
        Case(arguments: ["--codec", "divx"], status: 64, mentions: "'divx'"),
        Case(arguments: ["--encoder", "nope264"], status: 64, mentions: "nope264"),
        Case(arguments: ["--encoder", "libx264", "--codec", "vp9"], status: 64, mentions: "--codec"),
        Case(arguments: ["--preset", "warp9"], status: 64, mentions: "warp9"),
        Case(arguments: ["--size", "640x480", "--scale", "0.5"], status: 64, mentions: "--scale"),
        Case(arguments: ["--monitor", "DP-9"], status: 69, mentions: "screen"),
        Case(arguments: ["--source", ":0", "--source", ":1", "--split", "1.5"], status: 64,
             mentions: "The value '1.5' is invalid for '--split"),
        Case(arguments: ["--layout", "over"], status: 64,
             mentions: "--layout lays out two sources: pass --source twice"),
        Case(arguments: ["--source", "monitor:0", "--monitor", "0"], status: 64,
             mentions: "--source cannot be combined with --monitor '0'"),
        Case(arguments: ["--source", ":1", "--source", ":2", "--source", ":3"], status: 64, mentions: "twice at most"),
        Case(arguments: ["--source", "0", "--source", ":1"], status: 64,
             mentions: "The value '0' is invalid for '--source"),
        Case(arguments: ["--source", "monitor:0", "--source", ":9999"], status: 69, mentions: ":9999"),
        Case(arguments: ["--source", "monitor:0", "--source", "monitor:0", "--split-min", "0.7", "--split-max", "0.3"],
             status: 64, mentions: "--split-min 0.7 is above --split-max 0.3"),
        Case(arguments: ["--source", "monitor:0", "--source", "monitor:0", "--over-size", "60%"], status: 64,
             mentions: "10% to 50%"),
        Case(arguments: ["--source-fit", "cover"], status: 64, mentions: "--source-fit lays out two sources"),
        Case(arguments: ["--display", ":9999"], status: 69, mentions: ":9999"),
        Case(arguments: ["--crf", "70"], status: 64, mentions: "--crf '70'"),
        Case(arguments: ["--crf", "20", "-b", "2M"], status: 64, mentions: "--crf and --bitrate cannot be combined"),
        Case(arguments: ["-t", "1:75"], status: 64, mentions: "'1:75'"),
        Case(arguments: ["--log-level", "loud"], status: 64, mentions: "'loud'"),
        Case(arguments: ["--log-level", "debug", "--quiet"], status: 64, mentions: "cannot be combined"),
        // Reported as unknown, not as a missing --to.
        Case(arguments: ["-o", "x.mkv"], status: 64, mentions: "Unknown option '-o'"),
        Case(arguments: ["--to", "window:0"], status: 64,
             mentions: "--to 'window:screen' would cover the captured area"),
        Case(arguments: ["--to", "window", "--to", "window:1"], status: 64, mentions: "--to window can be given once"),
        Case(arguments: ["--audio", "mic?gain=loud"], status: 64, mentions: "'mic?gain=loud' is invalid for '--audio"),
        Case(arguments: ["--audio", "mic?gain=30dB"], status: 64, mentions: "from -60dB to +12dB"),
        Case(arguments: ["--audio", "mic?volume=2"], status: 64, mentions: "?gain=DB"),
        Case(arguments: ["--audio", "--audio", "desktop?gain=-6dB"], status: 64, mentions: "given twice"),
        Case(arguments: ["--window", "nosuch"], status: 69,
             mentions: "--window 'nosuch': no such window; this display shows no windows"),
        Case(arguments: ["--window", "0x1234567"], status: 69, mentions: "--window '0x1234567': no such window is"),
        Case(arguments: ["--window", "0xZZ"], status: 64, mentions: "The value '0xZZ' is invalid for '--window"),
        Case(arguments: ["--window", ""], status: 64, mentions: "is invalid for '--window"),
        Case(arguments: ["--window", "x", "--region", "10x10+0+0"], status: 64,
             mentions: "--window 'x' cannot be combined with --region '10x10+0+0'"),
        Case(arguments: ["--window", "x", "--monitor", "0"], status: 64, mentions: "cannot be combined with --monitor"),
        Case(arguments: ["--exit-when-gone"], status: 64, mentions: "--exit-when-gone needs --window"),
        Case(arguments: ["--source", "wlr", "--forget-choice"], status: 64, mentions: "--forget-choice drops"),
        Case(arguments: ["--source", "portal", "--monitor", "1"], status: 64,
             mentions: "--monitor '1' is not taken with --source portal: the desktop's dialog picks"),
        Case(arguments: ["--source", "wlr:HDMI-1", "--source", "camera", "--no-shm"], status: 64,
             mentions: "--no-shm is for X servers, not with --source wlr:HDMI-1"),
        Case(arguments: ["--source", "wlr:"], status: 64, mentions: "wlr: needs an output's name or index"),
        Case(arguments: ["--source", "camera", "--source", "pipewire:7", "--show-region"], status: 64,
             mentions: "--show-region works on a captured X11 screen; pass one with --source"),
        Case(arguments: ["--source", "portal", "--mask", "notifications"], status: 64,
             mentions: "--mask works on X11 screens for now, not with --source portal"),
        Case(arguments: ["--replay", "1s"], status: 64,
             mentions: "'1s' is invalid for '--replay <LENGTH>': keep from 5s"),
        Case(arguments: ["--replay-memory", "64M"], status: 64, mentions: "--replay-memory '64M' is for a replay"),
        Case(arguments: ["--replay", "2m", "--replay-memory", "10K"], status: 64,
             mentions: "'10K' is invalid for '--replay-memory <SIZE>': expected a size of 1M or more"),
        Case(arguments: ["--audio", "app:"], status: 64, mentions: "expected app:NAME with an application's name"),
        Case(arguments: ["--audio", "a", "--audio", "b", "--audio", "c", "--audio", "d", "--audio", "e"], status: 64,
             mentions: "--audio 'e': at most 4 sources are mixed"),
    ]

    @Test(arguments: cases)
    func refused(_ bad: Case) async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("out.mkv").path
        try await SharedXvfb.borrow { display in
            let arguments = ["stream", "--display", display] + bad.arguments + ["--to", output]
            let refusal = await CommandLineRun.refusal(arguments)
            try CommandLineRun.expect(refusal, code: bad.status, mentions: bad.mentions, folder: folder)
        }
    }

    /// A text no kind reads, and hosts looked up before anything is opened (each kind's own
    /// refusals: OutputCatalogTests).
    @Test(arguments: ["ftp://host:1", "udp://256.1.1.1:5000", "udp://no-such-host.invalid:5000",
                      "tcp://999.0.0.1:9000"])
    func unusableOutputs(_ url: String) async throws {
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--to", url])
        try CommandLineRun.expect(refusal, code: 64, mentions: url, folder: folder)
    }

    /// Encodings and playlists that cannot be made are refused before the playlist's folder is.
    @Test(arguments: [
        ("b.mkv?size=0x0", "?size=0x0: width and height must be positive"),
        ("b.mkv?bogus=1", "unknown option ?bogus for a file"),
        ("b.mkv?split=500ms", "?split=500ms: a file lasts 1s at least"),
        ("b.mkv?split=100K", "?split=100K: expected a size of 1M or more"),
        ("hls/live.m3u8?ladder=", "?ladder= is empty"),
        ("hls/live.m3u8?ladder=720p,1080p", "every rung of the ladder is larger than the 320x240 source"),
        ("hls/live.m3u8?codec=vp9", "HLS segments carry H.264 or HEVC"),
        ("hls/live.m3u8?size=640x360", "?size= does not apply to a playlist"),
        ("hls/live.m3u8?bogus=1", "unknown option ?bogus for an .m3u8 playlist"),
        ("hls/li%ve.m3u8", "an HLS playlist's path may not contain %"),
    ])
    func encodingsThatCannotBeMade(output: String, mentions: String) async throws {
        let folder = try Tools.temporaryFolder()
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal(["stream", "--display", display, "--to",
                                                        folder.appendingPathComponent(output).path])
            try CommandLineRun.expect(refusal, code: 64, mentions: mentions, folder: folder)
        }
    }

    /// Two outputs that would write one playlist: a second playlist named as a variant of the first.
    @Test func aPlaylistThatIsAnotherOnesVariant() async throws {
        let folder = try Tools.temporaryFolder()
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal([
                "stream", "--display", display, "--to", folder.appendingPathComponent("hls/live.m3u8").path,
                "--to", folder.appendingPathComponent("hls/live_240p.m3u8").path,
            ])
            try CommandLineRun.expect(refusal, code: 64,
                                      mentions: "live_240p.m3u8'; give each playlist a name of its own", folder: folder)
        }
    }

    /// An encoder or preset that does not exist is a usage error before the display is opened.
    @Test(arguments: [["--preset", "warp9", "--to"], ["--encoder", "nope264", "--to"], ["--to"]])
    func encoderChoicesAreCheckedBeforeTheDisplay(_ arguments: [String]) async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("a.mkv").path + (arguments == ["--to"] ? "?preset=warp9" : "")
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999"] + arguments + [output])
        try CommandLineRun.expect(refusal, code: 64, mentions: arguments.contains("nope264") ? "nope264" : "warp9",
                                  folder: folder)
    }

    /// A refused URL is quoted with its stream key or passphrase masked.
    @Test(arguments: [
        (["--to", "srt://127.0.0.1:9000?passphrase=tooShort1"], "srt://127.0.0.1:9000?passphrase=••••", "tooShort1"),
        (["--codec", "vp9", "--to", "rtmp://127.0.0.1/live/SECRETKEY"], "RTMP carries H.264; pass --codec h264",
         "SECRETKEY"),
        (["--to", "rtmps://127.0.0.1/live/SECRETKEY?retry=maybe"], "rtmps://127.0.0.1/live/••••", "SECRETKEY"),
        (["--to", "rtmps://127.0.0.1/live/SECRETKEY?ca=/no/such.pem"], "cannot read the certificate authorities",
         "SECRETKEY"),
        // A scheme mistyped is still a URL whose path or query may hold a key.
        (["--to", "rmtp://127.0.0.1/live/SECRETKEY"], "rmtp://127.0.0.1/live/••••", "SECRETKEY"),
        (["--to", "http://127.0.0.1:8080?token=SECRET!KEY"], "?token=••••", "SECRET!KEY"),
        // WebRTC carries H.264 and Opus; a TURN server's password is never said.
        (["--codec", "hevc", "--to", "whip+https://127.0.0.1/whip/talk?token=SECRETKEY"],
         "WHIP carries H.264, which every browser plays; pass --codec h264", "SECRETKEY"),
        (["--audio", "--audio-codec", "aac", "--to", "whip+http://127.0.0.1/whip/talk?token=SECRETKEY"],
         "WebRTC carries Opus sound; pass --audio-codec opus", "SECRETKEY"),
        (["--ice-server", "turn:ann:SECRETKEY@", "--to", "whip+http://127.0.0.1/whip/talk"], "--ice-server",
         "SECRETKEY"),
        (["--ice-server", "stun:127.0.0.1", "--to", "talk.mkv"], "--ice-server is for whip+https:// outputs",
         "SECRETKEY"),
        (["--to", "whip://127.0.0.1/whip/SECRETKEY"], "WHIP goes over HTTP: write whip+https://", "SECRETKEY"),
    ])
    func secretsAreMaskedInRefusals(arguments: [String], mentions: String, secret: String) async throws {
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999"] + arguments)
        try CommandLineRun.expect(refusal, code: 64, mentions: mentions, folder: folder, secret: secret)
    }

    /// One file, one writer: the same file under another spelling, through a symlink, or as `--stats-json`.
    @Test(arguments: [("a.mkv", "./a.mkv"), ("a.mkv", "sub/../a.mkv"), ("a.mkv", "link.mkv")])
    func sameFileUnderTwoNames(first: String, second: String) async throws {
        let folder = try Tools.temporaryFolder()
        let files = FileManager.default
        try files.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: false)
        try files.createSymbolicLink(atPath: folder.appendingPathComponent("link.mkv").path,
                                     withDestinationPath: "a.mkv")
        let before = try files.contentsOfDirectory(atPath: folder.path).sorted()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--to", folder.path + "/" + first,
                                                    "--to", folder.path + "/" + second])
        #expect(refusal?.code == 64, "\(refusal?.line ?? "")")
        #expect(refusal?.line.contains("name the same file") == true, "\(refusal?.line ?? "")")
        #expect(try files.contentsOfDirectory(atPath: folder.path).sorted() == before, "nothing created")
    }

    @Test func statisticsIntoARecording() async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("a.mkv").path
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--stats-json", output,
                                                    "--to", output])
        try CommandLineRun.expect(refusal, code: 64, mentions: "--stats-json '\(output)' name the same file",
                                  folder: folder)
    }

    /// Folders no file can be created in are refused before capture starts, in one line.
    @Test(arguments: ["/sys/podium.mkv", "/proc/podium.mkv"])
    func kernelFolders(_ target: String) async throws {
        let folder = try Tools.temporaryFolder()
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal(["stream", "--display", display, "--to", target])
            try CommandLineRun.expect(refusal, code: 73, mentions: "--to '\(target)'", folder: folder)
        }
    }

    @Test(.enabled(if: TemporaryMount.permitted, "mounting a tmpfs is not permitted here"))
    func readOnlyFolder() async throws {
        let mount = try TemporaryMount(megabytes: 1)
        #expect(try Tools.run("/bin/mount", ["-o", "remount,ro", mount.path]).status == 0)
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--to", mount.path + "/out.mkv"])
        try CommandLineRun.expect(refusal, code: 73, mentions: "read-only", folder: folder)
    }

    @Test func codecTheContainerCannotCarry() async throws {
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--codec", "vp9",
                                                    "--to", "udp://127.0.0.1:5000"])
        try CommandLineRun.expect(refusal, code: 64, mentions: "vp9", folder: try Tools.temporaryFolder())
    }

    @Test(arguments: ["stream", "mirror"])
    func sameOutputTwice(_ command: String) async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("a.mkv").path
        let refusal = await CommandLineRun.refusal([command, "--display", ":9999", "--to", output, "--to", output])
        try CommandLineRun.expect(refusal, code: 64, mentions: "--to names the same output twice", folder: folder)
    }

    @Test func sixteenBitDisplayIsRefused() async throws {
        let server = try XvfbServer(width: 320, height: 240, depth: 16)
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", server.display,
                                                    "--to", folder.appendingPathComponent("a.mkv").path])
        try CommandLineRun.expect(refusal, code: 69, mentions: "16-bit", folder: folder)
    }

    @Test func existingOutputIsKeptWithoutOverwrite() async throws {
        let folder = try Tools.temporaryFolder()
        let existing = folder.appendingPathComponent("keep.mkv")
        try Data("precious".utf8).write(to: existing)
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal(["stream", "--display", display, "--to", existing.path])
            #expect(refusal?.code == 73 && refusal?.line.contains("--overwrite") == true, "\(refusal?.line ?? "")")
            #expect(await CommandLineRun.plan(["stream", "--display", display, "--overwrite", "--to", existing.path])
                    != nil)
        }
        #expect(try String(contentsOf: existing, encoding: .utf8) == "precious")
    }

    @Test func missingFolder() async throws {
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999",
                                                    "--to", folder.appendingPathComponent("no/such/out.mkv").path])
        try CommandLineRun.expect(refusal, code: 73, mentions: "does not exist", folder: folder)
    }

    @Test func unwritableFolder() async throws {
        // Root writes anywhere but on a read-only file system.
        let folder = try Tools.temporaryFolder()
        let target = getuid() == 0 ? "/proc/self/podium.mkv" : "/out.mkv"
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--to", target])
        try CommandLineRun.expect(refusal, code: 73, mentions: target, folder: folder)
    }

    /// Bench and scene refuse bad values before any server starts or any file is written.
    @Test(arguments: [
        (["bench", "--fps", "0,30"], "'0'"), (["bench", "--fps", "30,max,30"], "30 is given twice"),
        (["bench", "--fps", "fast"], "'fast'"), (["bench", "--seconds", "0"], "--seconds '0'"),
        (["bench", "--scene", "video", "--display", ":0"], "--display ':0'"),
        (["bench", "--scene-size", "640x480"], "--scene-size needs --scene"), (["bench", "--format", "xml"], "'xml'"),
        (["bench", "--scene", "video", "--scene-size", "100x100"], "--scene-size '100x100'"),
        (["scene", "--kind", "movie"], "'movie'"), (["scene", "--fps", "500"], "'500'"),
    ])
    func benchAndSceneRefuse(_ arguments: [String], mentions: String) async throws {
        let folder = try Tools.temporaryFolder()
        let plot = arguments[0] == "bench" ? ["--plot", folder.appendingPathComponent("p.svg").path] : []
        let refusal = await CommandLineRun.refusal(arguments + plot)
        try CommandLineRun.expect(refusal, code: 64, mentions: mentions, folder: folder)
    }

    @Test func mirrorRefusesToCoverTheCapturedMonitor() async throws {
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal(["mirror", "--display", display, "--on", "0"])
            try CommandLineRun.expect(refusal, code: 64, mentions: "mirror itself", folder: try Tools.temporaryFolder())
        }
    }

    @Test(arguments: [["--fit", "zoom"], ["--background", "mauve"], ["--pip", "middle"], ["--pip-size", "32x32"],
                      ["--pip-size", "400x200"], ["--pip", "top-left", "--windowed"]])
    func badMirrorInput(_ arguments: [String]) async throws {
        let target = try XvfbServer(width: 320, height: 240)
        try await SharedXvfb.borrow { display in
            let refusal = await CommandLineRun.refusal(["mirror", "--display", display, "--on-display", target.display]
                                                       + arguments)
            try CommandLineRun.expect(refusal, code: 64, mentions: arguments[1], folder: try Tools.temporaryFolder())
        }
    }

    /// Opus cannot go in FLV: refused before anything starts, naming the output and AAC.
    @Test func opusIsRefusedWhereItCannotBeCarried() async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("opus.flv").path
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--audio", "--audio-codec", "opus",
                                                    "--to", output])
        try CommandLineRun.expect(refusal, code: 64, mentions: "--to '\(output)': opus cannot be carried in",
                                  folder: folder)
        #expect(refusal?.line.contains("--audio-codec aac") == true, "\(refusal?.line ?? "")")
    }

    @Test(arguments: [
        ("http://:8080?max-viewers=0", "?max-viewers=0: expected 1 to 1000"),
        ("http://0.0.0.0:8080?token=off", "?token=off lets anyone who reaches 0.0.0.0 watch"),
        ("https://:8443?cert=/etc/hostname", "?cert= needs ?key="),
        ("https://:8443?cert=/no/such.pem&key=/no/such.key", "cannot read ?cert=/no/such.pem"),
        ("http://:8080?cert=a&key=b", "?cert= is for https://"),
        ("http://:8080/page", "without a path"),
        ("http://:8080?token=short", "?token= must be 16 to 128"),
        ("http://:8080?name=room_1.lan", "?name=room_1.lan is not a host name"),
        ("http://:8080?codec=vp9", "the browser viewer plays H.264"),
        ("http://no-such-host.invalid:8080", "does not resolve"),
        ("http://:99999", "a number from 1 to 65535"),
    ])
    func badViewerOptions(output: String, mentions: String) async throws {
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", ":9999", "--to", output,
                                                    "--to", folder.appendingPathComponent("a.mkv").path])
        try CommandLineRun.expect(refusal, code: 64, mentions: mentions, folder: folder)
    }

    /// Against a headless sway: what wlroots' screencopy cannot do, and outputs or a display not there.
    @Test func waylandRequestsAreRefusedBeforeAnythingOpens() async throws {
        let sway = try SwayServer(width: 640, height: 480)
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("never.mkv").path
        let cases: [(arguments: [String], code: Int32, mentions: String)] = [
            (["--region", "100x100+0+0"], 64, "--region '100x100+0+0'"),
            // wlroots says nothing of the pointer's place to other clients: no highlight, no zoom.
            (["--display", sway.display, "--zoom", "2"], 64,
             "--zoom cannot be drawn: the compositor's screencopy does not say where the pointer is"),
            (["--display", sway.display, "--mask", "notifications"], 64, "layer surfaces"),
            // The outputs it has are named.
            (["--display", sway.display, "--monitor", "DP-9"], 69, "HEADLESS-1"),
            (["--display", folder.appendingPathComponent("no-such-socket").path], 69,
             "cannot connect to the Wayland display"),
        ]
        for bad in cases {
            let refusal = await CommandLineRun.refusal(["stream", "--source", "wlr"] + bad.arguments + ["--to", output])
            try CommandLineRun.expect(refusal, code: bad.code, mentions: bad.mentions, folder: folder)
        }
    }

    /// `podium extend`'s monitor, refused as the command line is read (what only the desktop
    /// refuses: ExtendTests).
    @Test(arguments: [
        (["0x0"], "The value '0x0' is invalid for '<WxH[@FPS]>': width and height must be positive"),
        (["99999x10"], "sides above 16384 pixels are not supported"),
        (["640x10"], "each side must be 64 to 8192 pixels"),
        (["640x480@0"], "the rate after @ must be 1 to 240"),
        (["--above", "DUMMY0", "--below", "DUMMY0"], "--above and --below cannot be combined"),
        (["--monitor-scale", "5"], "--monitor-scale 5.0: the scale must be 1.0 to 4.0"),
        (["--allow-input", "--to", "http://0.0.0.0:8099"], "--allow-input: over http://0.0.0.0:8099 anyone on "
            + "the network reads the input link's token and every key typed"),
    ])
    func extendRefusals(_ arguments: [String], said: String) async throws {
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("a.mkv").path
        let refusal = await CommandLineRun.refusal(["extend"] + arguments + ["--display", ":9999", "--to", output])
        try CommandLineRun.expect(refusal, code: 64, mentions: said, folder: folder)
    }

    /// No window of that name: 69, the windows there are listed (under a window manager), nothing created.
    @Test func anUnknownWindowListsThoseThereAre() async throws {
        let server = try XvfbServer(width: 640, height: 480)
        let manager = try WindowManager(display: server.display)
        defer { withExtendedLifetime(manager) {} }
        let window = try TestWindow(display: server.display, title: "Slides — Impress", instance: "soffice",
                                    className: "libreoffice-impress", x: 40, y: 40, width: 200, height: 150,
                                    rgb: 0xFF0000)
        try window.waitUntilShown()
        let folder = try Tools.temporaryFolder()
        let refusal = await CommandLineRun.refusal(["stream", "--display", server.display, "--window", "gimp",
                                                    "--to", folder.appendingPathComponent("a.mkv").path])
        try CommandLineRun.expect(refusal, code: 69, mentions: "no such window", folder: folder)
        #expect(refusal?.line == "--window 'gimp': no such window; windows here: 'Slides — Impress' (\(window.hexID))")
    }
}
