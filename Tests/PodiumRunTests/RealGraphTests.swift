import Foundation
import PodiumCore
import PodiumTestSupport
import Synchronization
import Testing

extension InProcess {
    /// The graph of real parts, built from a plan and run in this process: a private Xvfb showing a
    /// known picture, libx264, libavformat's outputs, checked by FFmpeg's tools. Serialized: each test
    /// encodes in real time, and two cores are shared with the peers.
    @Suite struct RealGraphTests {
        let server: XvfbServer
        let pattern: TestPattern
        let folder: URL

        init() throws {
            server = try XvfbServer(width: 320, height: 240)
            pattern = TestPattern(width: 320, height: 240, seed: 2)
            try Painter(display: server.display).draw(pattern)
            folder = try Tools.temporaryFolder()
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        @Test func sixtyFramesToMatroskaDecodeToThePicture() async throws {
            let output = path("out.mkv")
            let run = try await InProcessRun(display: server.display, to: [output], frames: 60, tracksDamage: false)
            #expect(await run.run() == nil)
            let probe = try Tools.probe(output)
            #expect(probe.frames == 60)
            #expect(probe.width == 320 && probe.height == 240)
            let quality = psnr(try Tools.decodeFrame(output, index: 30), try Tools.reference(pattern))
            #expect(quality >= 40, "PSNR \(quality) dB")
        }

        @Test func udpStreamDecodesInFFmpeg() async throws {
            let port = Tools.freePort()
            let received = path("udp.ts")
            let receiver = try Tools.start("ffmpeg", ["-v", "error", "-y",
                                                      "-i", "udp://127.0.0.1:\(port)?timeout=3000000",
                                                      "-c", "copy", received])
            try await Task.sleep(for: .seconds(1))
            let run = try await InProcessRun(display: server.display, to: ["udp://127.0.0.1:\(port)"], frames: 90,
                                             tracksDamage: false)
            #expect(await run.run() == nil)
            _ = try receiver.wait(timeout: 30)
            let probe = try Tools.probe(received)
            #expect(probe.frames >= 81, "decoded \(probe.frames) of 90 frames sent")
            let quality = psnr(try Tools.decodeFrame(received, index: probe.frames / 2), try Tools.reference(pattern))
            #expect(quality >= 40, "PSNR \(quality) dB")
        }

        @Test func tcpListenerServesFFmpeg() async throws {
            let port = Tools.freePort()
            let run = try await InProcessRun(display: server.display, to: ["tcp://127.0.0.1:\(port)?listen"],
                                             duration: .seconds(4), tracksDamage: false)
            let running = await run.start()
            try await Task.sleep(for: .milliseconds(500))
            let received = path("tcp.ts")
            let receiver = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", "tcp://127.0.0.1:\(port)", "-c", "copy",
                                                    received], timeout: 30)
            #expect(receiver.status == 0, "\(receiver.stderr)")
            #expect(await running.value == nil)
            let probe = try Tools.probe(received)
            #expect(probe.frames >= 30, "a client that joins late still gets the rest, from a keyframe")
            let first = psnr(try Tools.decodeFrame(received, index: 0), try Tools.reference(pattern))
            #expect(first >= 40, "its first frame decodes whole: PSNR \(first) dB")
        }

        @Test func anOutputThatCannotConnectLeavesTheOthersRunning() async throws {
            let output = path("kept.mkv")
            // Port 1 on loopback: nothing listens there, so the connection is refused at once.
            let run = try await InProcessRun(display: server.display, to: [output, "tcp://127.0.0.1:1"], frames: 30,
                                             tracksDamage: false)
            #expect(await run.run() == nil)
            #expect(run.log.count("tcp://127.0.0.1:1") > 0, "\(run.log.messages)")
            #expect(try Tools.probe(output).frames == 30)
        }

        @Test func everyOutputGoneEnds74() async throws {
            let run = try await InProcessRun(display: server.display, to: ["tcp://127.0.0.1:1?retry=off"], frames: 30,
                                             tracksDamage: false)
            let error = await run.run()
            #expect(error?.exitCode == .io)
            #expect(error?.message == "every output failed; stopping")
        }

        @Test func losingTheXServerFinalizesTheRecording() async throws {
            let own = try XvfbServer(width: 320, height: 240)
            let output = path("lost.mkv")
            let run = try await InProcessRun(display: own.display, to: [output], tracksDamage: false)
            let running = await run.start()
            try await Task.sleep(for: .milliseconds(1500))
            own.stop()
            let error = await running.value
            #expect(error?.exitCode == .unavailable)
            #expect(error?.message.contains("lost the X display") == true)
            #expect(try Tools.probe(output).frames >= 30, "what was captured is kept, and the file plays")
        }

        /// Damage-driven capture: a screen that does not change costs only the idle repeats, and a
        /// change is picked up at once.
        @Test func aStaticScreenSendsOnlyIdleRepeatsAndChangesGetThrough() async throws {
            let output = path("static.mkv")
            var encode = EncodingDefaults()
            encode.keyframeInterval = .seconds(1)
            let run = try await InProcessRun(display: server.display, to: [output], duration: .seconds(3),
                                             encode: encode)
            let running = await run.start()
            try await Task.sleep(for: .seconds(2))
            let changed = TestPattern(width: 320, height: 240, seed: 12)
            try Painter(display: server.display).draw(changed)
            #expect(await running.value == nil)
            // The first frame, one repeat a second, the frame of the change and the last picture held
            // to the end (90 at a constant 30 fps).
            let frames = try Tools.probe(output).frames
            #expect((3...7).contains(frames), "\(frames) frames")
            #expect(psnr(try Tools.decodeFrame(output, index: frames - 1), try Tools.reference(changed)) >= 40,
                    "the change got through")
            #expect(run.counters.sources[0].unchanged.load(ordering: .relaxed) > 60)
            // Keyframes come by time even when frames are sparse: one at the start and one a second after.
            let packets = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                    "-show_entries", "packet=flags", "-of", "csv=p=0", output])
            let keyframes = packets.stdout.split(separator: "\n").filter { $0.hasPrefix("K") }.count
            #expect(keyframes >= 2, "\(keyframes) keyframes in 3 s with a keyframe interval of 1 s")
        }
    }
}
