import Foundation
import Logging
import PodiumCore
import PodiumTestSupport
import PodiumWayland
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// PipeWire video in-process, against a real PipeWire (the tests' sound server's) and real
/// producers: a node found with its size, its frames with the producer's pixels and the rows its
/// damage names, and a node that is not there refused with 69.
@Suite(.serialized) struct PipeWireCaptureTests {
    let server: SoundServer
    let remote: PrivatePipeWire
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    init() throws {
        server = try SoundServer()
        remote = PrivatePipeWire(socket: server.pipeWireSocket)
    }

    @Test func aNodeIsFoundAtItsSizeAndItsFramesHoldItsPixels() throws {
        let (producer, node) = try server.provideVideo(colour: "336699", name: "podium-inprocess-blue")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let plan = try PipeWirePlan.look(node: UInt32(node), remote: remote)
        #expect(plan.size == PixelSize(width: 640, height: 360) && plan.name == "PipeWire node \(node)", "\(plan)")
        var grabber = try plan.openGrabber(bufferCount: 2, presenter: PresenterTools(), logger: logger)
        let frame = try nextFrame(of: &grabber)
        #expect(frame.size == plan.size, "\(frame.size)")
        #expect(frame.pixels(in: PixelRect(x: 0, y: 0, size: plan.size), otherThan: [0x33, 0x66, 0x99]) == 0,
                "\(describe(frame))")
    }

    /// `pipewire-damage-producer` draws a white band 16 rows high on grey, two rows lower each
    /// frame, and says which rows changed: each frame has the band where the picture had it, and
    /// names those rows, not the whole picture.
    @Test func eachFrameNamesTheRowsTheProducerChanged() throws {
        let (producer, node) = try server.provideVideo(named: "podium-inprocess-damage", by: Tools.start(
            Tools.built("pipewire-damage-producer").path, ["podium-inprocess-damage", "30"],
            environment: server.pipeWireEnvironment))
        defer { _ = try? producer.interrupt(timeout: 5) }
        let plan = try PipeWirePlan.look(node: UInt32(node), remote: remote)
        var grabber = try PipeWireCapture(plan: plan, bufferCount: 2, logger: logger)
        _ = try nextFrame(of: &grabber)
        for _ in 0..<5 {
            let frame = try nextFrame(of: &grabber)
            let white = (0..<frame.size.height).filter { frame.rgb(x: 320, y: $0) == [255, 255, 255] }
            let grey = (0..<frame.size.height).filter { frame.rgb(x: 320, y: $0) == [0x80, 0x80, 0x80] }
            #expect(white.count == 16 && white.last.map { $0 - white[0] } == 15 && grey.count == 360 - 16,
                    "one band of 16 white rows on grey: \(white)")
            let changed = try #require(frame.changedRows, "the producer's damage")
            #expect((1...40).contains(changed.rowCount), "rows named: \(changed)")
            #expect(white.allSatisfy { row in (0..<changed.count).contains { changed[$0].contains(row) } },
                    "the band's rows \(white.first ?? -1)... are among those named: \(changed)")
        }
    }

    @Test func aNodeThatIsNotThereIsRefused() throws {
        let error = #expect(throws: PodiumError.self) { try PipeWirePlan.look(node: 99_999, remote: remote) }
        #expect(error?.exitCode == .unavailable
                && error?.message.contains("PipeWire node 99999 sent no picture") == true,
                "\(String(describing: error))")
    }
}

/// A private PipeWire reached by its socket's path, as a plan's remote: the library connects to
/// the user's own daemon through `$XDG_RUNTIME_DIR` otherwise, and the test process's environment
/// is every suite's, read by their threads.
final class PrivatePipeWire: PipeWireRemote {
    let socket: String

    init(socket: String) {
        self.socket = socket
    }

    var ended: String? { nil }

    func connect() throws(PodiumError) -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .unavailable("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket.utf8CString)
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw .unavailable("\(socket): too long a path for a socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { room in
            path.withUnsafeBytes { room.copyMemory(from: $0) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unavailable("cannot connect to PipeWire at \(socket): \(reason)")
        }
        return descriptor
    }
}
