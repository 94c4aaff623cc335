import ArgumentParser
import Foundation
import PodiumCore
import PodiumSound
import PodiumX11

extension Podium {
    /// `podium scene`: known, cheaply drawn content to capture, for benchmarks and tests.
    struct Scene: ParsableCommand, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "scene",
            abstract: "Draw test content over a whole X display, for benchmarks and tests.",
            usage: "podium scene [options]",
            discussion: """
                Kinds:
                  video      every pixel changes every frame (a textured picture slides by)
                  slides     a text slide with a pointer-sized square moving over it;
                             the next slide every 5 s
                  static     one slide, drawn once
                  repainted  one slide, drawn again whole every frame with the same pixels
                  caret      the repainted slide with a text caret blinking twice a second
                  animated   one slide, drawn again whole every frame, with the square
                             of slides moving over it
                  clapper    a dark screen that flashes white for 100 ms every second,
                             with a 50 ms beep into the sound server's default output
                             at the same instant (see 'podium av-sync')

                Each frame of video, slides, static and animated carries its sequence number \
                and draw time (milliseconds of CLOCK_MONOTONIC) \
                as three rows of 32 black and white 8-pixel blocks in the top-left corner: the \
                sequence, the time, and a check word (sequence × 0x9E3779B1 XOR time XOR 0xA5A5A5A5, \
                32-bit). Pictures are \
                drawn once into shared memory, so a frame costs this process almost nothing; the X \
                server copies the pixels (about 8 MB a frame at 1080p for video).

                It covers the whole display, so without --display it refuses to draw on $DISPLAY, \
                the screen you are using, unless you pass --yes.

                Examples:
                  podium scene --display :1 --kind video --fps 60
                  podium scene --kind slides --duration 1m --yes
                """
        )

        @Option(help: ArgumentHelp("The X display to draw on (default: $DISPLAY).", valueName: ":N"))
        var display: String?

        @Option(help: ArgumentHelp("What to draw.",
                                   valueName: "video|slides|static|repainted|caret|animated|clapper"))
        var kind: SceneKind = .video

        @Option(help: ArgumentHelp("Frames per second, 1 to 240 (default: 30).", valueName: "N"),
                transform: parsed(FrameRate.init(parsing:)))
        var fps = FrameRate(30)

        @Option(help: ArgumentHelp("Stop after this long, such as 10s or 2m (default: until Ctrl-C).",
                                   valueName: "DURATION"),
                transform: parsed(Duration.init(parsing:)))
        var duration: Duration?

        @Flag(help: "Print nothing but errors.")
        var quiet = false

        @Flag(help: "Draw on $DISPLAY even though it is the screen you are using.")
        var yes = false

        /// A scene covers every pixel of its display and keeps it covered, so drawing on the
        /// user's own screen by accident (a forgotten --display) takes their desktop away until
        /// Ctrl-C; refused before anything is opened. Without $DISPLAY there is nothing to cover,
        /// and opening the display says what to do.
        func validate() throws {
            guard display == nil, !yes, let own = Invocation.current.environment["DISPLAY"], !own.isEmpty else {
                return
            }
            throw ValidationError("scene would cover your screen on $DISPLAY (\(own)); "
                                  + "pass --display :N for a private display, or --yes to draw on \(own)")
        }

        func run() throws {
            let connection = try XConnection(display: display ?? Invocation.current.environment["DISPLAY"])
            let player = try ScenePlayer(connection: connection, kind: kind)
            let stop = StopFlag()
            Invocation.current.onStop { stop.raise() }
            if !quiet {
                Console.say("drawing the \(kind) scene on \(connection.displayName) (\(player.screen)) at \(fps) fps; "
                            + "Ctrl-C to stop")
            }

            let clock = MonotonicClock()
            // Slot 0 and the first beep share one instant, a little ahead so that the sound is open
            // by then: each flash is drawn at its beep's instant, not up to a frame interval after.
            let start = clock.now() + 250_000_000
            var pacer = FramePacer(grid: FrameGrid(fps: fps), start: start)
            // The clapper's beeps, on a thread of their own, at the flashes' instants.
            let beeping = ThreadGroup()
            defer {
                stop.raise()
                beeping.waitBlocking()
            }
            if kind == .clapper {
                // Connected on its own thread, which keeps it; no sound server ends the scene here.
                let opened = ReadyLatch(count: 1)
                let servers = SoundServers(environment: Invocation.current.environment)
                beeping.spawn("podium-clapper") {
                    do throws(PodiumError) {
                        let sound = try ClapperSound(origin: start, servers: servers)
                        opened.report(nil)
                        sound.play(until: stop)
                    } catch {
                        opened.report(error)
                    }
                }
                if let failure = opened.waitBlocking() { throw failure }
            }
            let end = duration.map { start + UInt64($0.nanoseconds) }
            var drawn: UInt64 = 0
            var late = 0
            while !stop.isRaised {
                guard let slot = pacer.nextSlot(clock: clock, maximumSleep: 50_000_000) else { continue }
                if let end, slot.deadline >= end { break }
                late += slot.skipped
                guard player.handleEvents() else {
                    throw PodiumError.unavailable("lost the X display \(connection.displayName)")
                }
                let stamp = SceneStamp(sequence: UInt32(truncatingIfNeeded: drawn),
                                       milliseconds: UInt32(truncatingIfNeeded: clock.now() / 1_000_000))
                if player.draw(sequence: drawn, elapsed: slot.deadline - start, stamp: stamp) { drawn += 1 }
            }
            let seconds = Double(clock.now() - min(start, clock.now())) / 1e9
            if !quiet { Console.say("drew \(drawn) frames in \(seconds.fixed(1)) s, \(late) late") }
        }
    }
}
