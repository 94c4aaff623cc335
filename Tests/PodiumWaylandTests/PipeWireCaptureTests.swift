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
        var grabber = try plan.openGrabber(bufferCount: 2, logger: logger)
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

    /// A producer that sends the pointer apart, as a desktop's screen cast does with the cursor as
    /// metadata (`pipewire-damage-producer … pointer`: a red square 16 pixels a side at (100, 100)
    /// on grey): the capture says where it is, and the overlay draws its picture, the highlight
    /// under it, and the zoom around it, over a copy (the capture's own frames stay as sent).
    @Test func thePointerSentApartIsDrawnWithTheHighlightAndTheZoom() throws {
        let (producer, node) = try server.provideVideo(named: "podium-inprocess-pointer", by: Tools.start(
            Tools.built("pipewire-damage-producer").path, ["podium-inprocess-pointer", "30", "pointer"],
            environment: server.pipeWireEnvironment))
        defer { _ = try? producer.interrupt(timeout: 5) }
        let plan = try PipeWirePlan.look(node: UInt32(node), remote: remote)
        var capture = try PipeWireCapture(plan: plan, bufferCount: 2, logger: logger)
        let plain = try nextFrame(of: &capture)
        #expect(plain.rgb(x: 104, y: 104) == [0x80, 0x80, 0x80], "the picture itself has no pointer")
        let report = try #require(capture.pointer, "the cursor metadata")
        #expect(report.x == 100 && report.y == 100 && report.cursor?.size == PixelSize(width: 16, height: 16))

        var highlighted = PresenterOverlay(source: capture, presenter: PresenterTools(highlight: .default),
                                           drawsCursor: true, bufferCount: 2)
        let frame = try nextFrame(of: &highlighted)
        #expect(frame.size == plan.size && frame.rgb(x: 104, y: 104) == [255, 0, 0], "\(describe(frame))")
        // 40 % of yellow over grey, 28 pixels from the pointer; nothing far from it.
        let lit = frame.rgb(x: 120, y: 120)
        #expect(abs(lit[0] - 179) <= 3 && abs(lit[1] - 179) <= 3 && abs(lit[2] - 77) <= 3, "\(lit)")
        #expect(frame.rgb(x: 300, y: 300) == [0x80, 0x80, 0x80] && frame.rgb(x: 100, y: 150) == [0x80, 0x80, 0x80])
        frame.buffer.share(with: 0)

        // Twice the size: a quarter of the picture around the pointer, kept inside it.
        var zoomed = PresenterOverlay(source: try PipeWireCapture(plan: plan, bufferCount: 2, logger: logger),
                                      presenter: PresenterTools(zoom: 2), drawsCursor: true, bufferCount: 2)
        let part = try nextFrame(of: &zoomed)
        // 320x180 around (100, 100), moved right and down to stay inside: from (0, 10).
        #expect(part.size == PixelSize(width: 320, height: 180), "\(describe(part))")
        #expect(part.rgb(x: 100, y: 90) == [255, 0, 0] && part.rgb(x: 99, y: 90) == [0x80, 0x80, 0x80]
                && part.rgb(x: 115, y: 105) == [255, 0, 0] && part.rgb(x: 116, y: 106) == [0x80, 0x80, 0x80],
                "the pointer's square at (100, 90) of the part: \(describe(part))")
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
