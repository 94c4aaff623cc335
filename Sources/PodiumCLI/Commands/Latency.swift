import ArgumentParser
import Foundation
import PodiumCore
import PodiumX11

extension Podium {
    /// `podium latency`: times how long a change on the captured screen takes to show where it is mirrored.
    struct Latency: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latency",
            abstract: "Measure a running mirror's delay: from a change on the captured screen to its appearance in the "
                + "window.",
            usage: "podium latency [options]",
            discussion: """
                With 'podium mirror' (or 'podium stream --to window', or a cast to a TV whose screen is \
                an X display) running, this puts a small marker \
                in the top-left corner of the captured monitor, finds it in the mirror, and flips its \
                colour again and again at random moments. Each delay runs from the moment the X server \
                has drawn the change on the captured screen to the moment the same colour can be read \
                back from the target screen; monitors' own scan-out delays come on top.

                Examples:
                  podium latency --on-display :1
                  podium latency --display :0 --monitor eDP-1 --changes 200 --json
                """
        )

        @Option(help: ArgumentHelp("The captured X display (default: $DISPLAY).", valueName: ":N"))
        var display: String?

        @Option(help: ArgumentHelp("The captured monitor: primary, a RandR name or an index.",
                                   valueName: "primary|NAME|INDEX"),
                transform: parsed(MonitorSelector.init(parsing:)))
        var monitor: MonitorSelector = .primary

        @Option(name: .customLong("on-display"),
                help: ArgumentHelp("The display the mirror shows on (default: the captured one).", valueName: ":N"))
        var onDisplay: String?

        @Option(help: ArgumentHelp("How many changes to time, 10 to 10000.", valueName: "N"))
        var changes = 100

        @Flag(help: "Print JSON instead of text.")
        var json = false

        static let colors = (RGBColor(red: 255, green: 32, blue: 160), RGBColor(red: 32, green: 224, blue: 64))
        /// Scaling and 4:2:0 conversions move colours; these two stay far apart.
        static let tolerance = 48
        static let markerSide = 64

        func validate() throws {
            guard (10...10_000).contains(changes) else {
                throw ValidationError("--changes '\(changes)' must be from 10 to 10000")
            }
        }

        func run() throws {
            let source = try XConnection(display: display)
            let layout = source.layout()
            let area = try monitor.select(from: layout.monitors)?.rect ?? PixelRect(x: 0, y: 0, size: layout.size)
            let target = try XConnection(display: onDisplay ?? source.displayName)
            let sameScreen = target.displayName == source.displayName
            let marker = PixelRect(x: area.x, y: area.y, width: min(Self.markerSide, area.width),
                                   height: min(Self.markerSide, area.height))
            let patch = try ColorPatch(connection: source, rect: marker, color: Self.colors.0)
            let probe = try find(patch, on: target, excluding: sameScreen ? area : nil)

            var delays: [Double] = []
            var missed = 0
            for change in 0..<changes {
                // Random moments, so changes do not lock onto capture's ticks.
                Thread.sleep(forTimeInterval: Double.random(in: 0.1...0.3))
                let color = change % 2 == 0 ? Self.colors.0 : Self.colors.1
                patch.paint(color)
                let drawn = ContinuousClock.now
                if try waitFor(color, at: probe, on: target, timeout: .seconds(5)) {
                    let elapsed = ContinuousClock.now - drawn
                    delays.append(Double(elapsed.components.attoseconds) / 1e15
                                  + Double(elapsed.components.seconds) * 1000)
                } else {
                    missed += 1
                }
                showProgress(measured: change + 1, delays: delays, missed: missed)
            }
            StatsLine.clear()
            report(delays.sorted(), missed: missed, target: target.displayName)
        }

        /// Where the marker shows on the target: the pixels that turn from the first colour to the
        /// second when the marker does (moving content elsewhere does not follow it).
        private func find(_ patch: ColorPatch, on target: XConnection,
                          excluding captured: PixelRect?) throws -> PixelRect {
            let screen = PixelRect(x: 0, y: 0, size: target.screenSize)
            // The first colour must be on show before the second is painted (a TV buffers).
            var before = try target.colors(in: screen)
            let shown = ContinuousClock.now + .seconds(6)
            while before.count(where: { $0.isNear(Self.colors.0, tolerance: Self.tolerance) }) < 16
                    && ContinuousClock.now < shown {
                Thread.sleep(forTimeInterval: 0.25)
                before = try target.colors(in: screen)
            }
            patch.paint(Self.colors.1)
            // A mirror shows it within a frame or two; a TV, which buffers, within a second or two.
            var xs: [Int] = []
            var ys: [Int] = []
            let deadline = ContinuousClock.now + .seconds(6)
            while xs.count < 4 && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.25)
                let after = try target.colors(in: screen)
                (xs, ys) = ([], [])
                for index in before.indices where before[index].isNear(Self.colors.0, tolerance: Self.tolerance)
                    && after[index].isNear(Self.colors.1, tolerance: Self.tolerance) {
                    let (x, y) = (index % screen.width, index / screen.width)
                    if let captured, captured.contains(PixelRect(x: x, y: y, width: 1, height: 1)) { continue }
                    xs.append(x)
                    ys.append(y)
                }
            }
            guard xs.count >= 4 else {
                throw PodiumError.unavailable(
                    "the marker in the captured monitor's top-left corner never showed on "
                        + "\(target.displayName): is 'podium mirror' (or a cast to a TV there) running?")
            }
            // The middle of the marker's image, robust to a stray pixel that happened to match.
            return PixelRect(x: xs.sorted()[xs.count / 2], y: ys.sorted()[ys.count / 2], width: 1, height: 1)
        }

        /// Polls one pixel until it shows `color` (every half millisecond, one small round trip each).
        private func waitFor(_ color: RGBColor, at probe: PixelRect, on target: XConnection,
                             timeout: Duration) throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if try target.colors(in: probe).first?.isNear(color, tolerance: Self.tolerance) == true { return true }
                usleep(500)
            }
            return false
        }

        /// The partial result on stderr, `measured 12/30  p50 41 ms  p99 63 ms`: after every change on
        /// a terminal, rewritten in place; every tenth change and the last otherwise, not to flood a log.
        private func showProgress(measured: Int, delays: [Double], missed: Int) {
            guard Console.isTerminal || measured % 10 == 0 || measured == changes else { return }
            let sorted = delays.sorted()
            func milliseconds(_ p: Double) -> String { Self.percentile(p, of: sorted).fixed(0) + " ms" }
            var line = "measured \(measured)/\(changes)"
            line += sorted.isEmpty ? "  nothing seen yet" : "  p50 \(milliseconds(0.5))  p99 \(milliseconds(0.99))"
            if missed > 0 { line += "  \(missed) missed" }
            StatsLine.show(line)
        }

        /// The nearest-rank percentile `p` (0 to 1) of values sorted in ascending order; 0 for none.
        private static func percentile(_ p: Double, of sorted: [Double]) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }

        private func report(_ sorted: [Double], missed: Int, target: String) {
            func percentile(_ p: Double) -> Double { Self.percentile(p, of: sorted) }
            let figures: [(String, Double)] = [("median", percentile(0.5)), ("p95", percentile(0.95)),
                                               ("min", sorted.first ?? 0), ("max", sorted.last ?? 0)]
            if json {
                let fields = figures.map { "\"\($0.0)Ms\": \($0.1.fixed(2))" }
                    + ["\"changes\": \(sorted.count + missed)", "\"missed\": \(missed)"]
                Console.output("{" + fields.joined(separator: ", ") + "}")
            } else {
                Console.output("glass-to-glass on \(target) over \(sorted.count + missed) changes: "
                               + figures.map { "\($0.0) \($0.1.fixed(1)) ms" }.joined(separator: ", ")
                               + "; \(missed) missed")
            }
        }
    }
}
