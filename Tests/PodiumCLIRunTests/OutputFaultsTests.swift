import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Statistics written where the user asks (stdout, a FIFO) and a disk that fills up: the run says
/// so once, ends with the right code, and what was written before the fault decodes.
@Suite(.programThreads) struct OutputFaultsTests {
    let desk: PrivateDesk
    var server: XvfbServer { desk.display }

    init() throws {
        desk = try PrivateDesk()
        try Painter(display: server.display).draw(TestPattern(width: 320, height: 240, seed: 31))
    }

    func path(_ name: String) -> String { desk.path(name) }

    @Test func statisticsOnStandardOutput() async throws {
        let result = try await ProgramRun.podium(["stream", "--duration", "1500ms", "--stats-json", "-",
                                                  "--to", path("stdout.mkv")], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last?.contains("\"kind\":\"summary\"") == true, "\(result.stdout)")
    }

    /// A FIFO that a reader has open is written, not replaced; one nobody reads is refused (73) rather than waited on.
    @Test func statisticsIntoAFIFO() async throws {
        let fifo = path("stats.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = try Tools.start("/bin/cat", [fifo])
        try await Task.sleep(for: .milliseconds(300))
        let result = try await ProgramRun.podium(["stream", "--duration", "1500ms", "--stats-json", fifo,
                                                  "--to", path("fifo.mkv")], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let read = try reader.wait(timeout: 10)
        #expect(read.stdout.contains("\"kind\":\"summary\""))
        // Foundation names a FIFO's type no better than "unknown": what matters is that no file
        // was put in its place.
        let kind = try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType
        #expect(kind != nil && kind != .typeRegular, "still a FIFO: \(String(describing: kind))")
        let unread = try await ProgramRun.podium(["stream", "--duration", "1s", "--stats-json", fifo,
                                                  "--to", path("unread.mkv")], display: server.display)
        #expect(unread.status == 73 && unread.stderr.contains("nothing reads from it"), "\(unread.stderr)")
    }

    /// A 3 MB disk holding the recording and the statistics: 74, and the recording decodes up to the fault.
    @Test(.enabled(if: TemporaryMount.permitted, "mounting a tmpfs is not permitted here"))
    func fullDisk() async throws {
        let mount = try TemporaryMount(megabytes: 3)
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let recording = mount.path + "/full.mkv"
        let result = try await ProgramRun.podium(["stream", "--bitrate", "20M", "--duration", "30s",
                                                  "--to", recording, "--stats-json", mount.path + "/s.jsonl"],
                                                 display: server.display)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"))
        #expect(result.stderr.components(separatedBy: "--stats-json").count <= 2,
                "the statistics file's fault is said at most once")
        #expect(try Tools.probe(recording).frames >= 10, "the recording decodes up to the fault")
    }

    /// A split recording on a disk that fills up: 74, and every file written before decodes, the
    /// one the fault cut short up to it.
    @Test(.enabled(if: TemporaryMount.permitted, "mounting a tmpfs is not permitted here"))
    func fullDiskWhileSplitting() async throws {
        let mount = try TemporaryMount(megabytes: 4)
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let recording = mount.path + "/talk.mkv"
        let result = try await ProgramRun.podium(["stream", "--bitrate", "20M", "--keyint", "500ms",
                                                  "--duration", "30s", "--to", recording + "?split=1M"],
                                                 display: server.display)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        let pieces = (1...99).map { FileSplit.piece($0, of: recording) }
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(pieces.count >= 2, "\(pieces)")
        let size = { (piece: String) in (try? FileManager.default.attributesOfItem(atPath: piece)[.size] as? Int) ?? 0 }
        for piece in pieces where size(piece) > 4_096 {
            #expect(try Tools.probe(piece).frames >= 1, "\(piece) decodes")
        }
    }
}
