import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia
import PodiumX11

extension Podium {
    /// `podium bench`: what each frame rate costs, measured on the real pipeline.
    struct Bench: AsyncParsableCommand, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Measure throughput against frame rate: the real pipeline at a sweep of rates.",
            usage: "podium bench [options]",
            discussion: """
                For each rate of --fps, Podium captures, converts and encodes for --seconds (after a \
                short warm-up that is not counted) and counts the packets without sending them. Each \
                row gives the rate achieved, frames dropped, Podium's CPU in cores (and the X server's \
                when it is Podium's own), each stage's time per frame (p50/p95/p99), the time from a \
                frame's grab to its packet (p50/p99), the output bitrate, and whether the rate was \
                met: at least 95 % of its slots gave a frame or found nothing new on screen. 'max' \
                grabs every slot back to back (--constant-fps at 240 fps) to find the ceiling.

                With --scene, Podium starts a private X server of --scene-size and draws the scene on \
                it (see 'podium scene') at each row's rate (60 fps for max); otherwise it measures \
                whatever --display shows. Capture is damage-driven as in 'podium stream': a screen \
                that does not change costs little; --constant-fps grabs every slot.

                Examples:
                  podium bench --scene video
                  podium bench --scene slides --fps 15,30,60 --seconds 10 --format csv
                  podium bench --display :0 --max-size 1280 --plot cost.svg
                  podium bench --source wlr --fps 15,30
                  podium bench --scene video --ladder 1080p,720p,360p
                  podium bench --scene slides --fps 30 --audio --seconds 20

                --audio measures the sound too (from the sound server, as 'podium stream' does): \
                its threads' CPU (capture, mixing, encoding) is the 'audio cpu' column.

                --ladder measures what each added encoding costs: at each rate (30 fps unless --fps \
                says otherwise) it runs the first rung alone, then the first two, and so on; every \
                frame is converted once and each smaller rung scales from that picture, as an HLS \
                ladder does.
                """
        )

        @OptionGroup(title: "Capture") var source: CaptureSource
        @OptionGroup(title: "Scale") var scale: ScaleOptions
        @OptionGroup(title: "Encode") var encode: EncodeOptions
        @OptionGroup(title: "Sound") var sound: SoundOptions

        @Option(name: .customLong("fps"),
                help: ArgumentHelp(
                    "The rates to measure, comma-separated, each 1 to 240 or max (default: 5,10,15,30,60,120,max).",
                    valueName: "LIST"),
                transform: parsed(BenchRate.sweep(parsing:)))
        var rates: [BenchRate]?

        @Option(help: ArgumentHelp("Encodings to add one at a time, largest first, as in ?ladder= of an HLS output.",
                                   valueName: "LIST"),
                transform: parsed(LadderRung.list(parsing:)))
        var ladder: [LadderRung]?

        @Option(help: ArgumentHelp("Seconds to measure each rate, 1 to 600.", valueName: "N"))
        var seconds = 5

        @Option(help: ArgumentHelp("Draw this scene on a private X server and measure that.",
                                   valueName: "video|slides|static|repainted|caret|animated"))
        var scene: SceneKind?

        @Option(name: .customLong("scene-size"),
                help: ArgumentHelp("The private X server's screen (default: 1920x1080).", valueName: "WxH"),
                transform: parsed(PixelSize.init(parsing:)))
        var sceneSize: PixelSize?

        @Option(help: "How to print the results.")
        var format: BenchFormat = .table

        @Option(help: ArgumentHelp("Also chart achieved fps, CPU and latency against the target rate in an SVG file.",
                                   valueName: "FILE.svg"))
        var plot: String?

        @Flag(help: "Replace the --plot file if it exists.")
        var overwrite = false

        @Flag(help: "Print nothing but the results and errors.")
        var quiet = false

        func validate() throws {
            if rates?.isEmpty == true { throw ValidationError("--fps needs at least one rate") }
            guard (1...600).contains(seconds) else {
                throw ValidationError("--seconds '\(seconds)' must be from 1 to 600")
            }
            if scene != nil && source.display != nil {
                throw ValidationError(
                    "--scene draws on a private X server of its own: leave out --display '\(source.display!)'")
            }
            if sceneSize != nil && scene == nil { throw ValidationError("--scene-size needs --scene") }
            if let plot, ladder != nil {
                throw ValidationError("--plot '\(plot)' charts a sweep of rates; with --ladder the rows are encoders: "
                                      + "use --format table, csv or json")
            }
            if let sceneSize, sceneSize.width < SceneStrip.size.width || sceneSize.height < SceneStrip.size.height {
                throw ValidationError(
                    "--scene-size '\(sceneSize)' is smaller than the scene's stamp (\(SceneStrip.size))")
            }
        }

        func run() async throws {
            if let plot { try OutputCheck.creatable(plot, as: .plot(plot), overwrite: overwrite) }
            if let name = encode.encoder.name { try EncoderCatalog.validate(name: name, codec: encode.codec) }
            if let preset = encode.preset {
                try EncoderCatalog.validate(preset: preset, encoder: encode.encoder, codec: encode.codec)
            }
            let logger = RunSetup.logger(.error)

            let size = sceneSize ?? PixelSize(width: 1920, height: 1080)
            // Waiting for Xvfb blocks: on a thread of its own.
            let server = scene == nil ? nil : try await onOwnThread("podium-xvfb") { () throws(PodiumError) in
                try VirtualDisplay(size: size)
            }
            var capture = source
            if let server { capture.display = server.display }
            let sweep = rates ?? (ladder == nil ? BenchRate.defaultSweep : [.fps(30)])
            let defaults = encode.defaults(scale, display: capture.display)
            let runner = BenchRunner(plan: .init(source: capture, encode: defaults, sound: sound.plan(),
                                                 rates: sweep, ladder: ladder, seconds: seconds, scene: scene,
                                                 xServer: server?.pid),
                                     logger: logger)
            // The runner reports from threads of its own: they are handed the invocation.
            let invocation = Invocation.current
            invocation.onStop { runner.stop() }
            let showProgress = !quiet
            let rowPrinter = BenchRowPrinter(format: format,
                                             columns: BenchColumns(ladder: ladder != nil, sound: sound.plan() != nil),
                                             seconds: Double(seconds), write: { invocation.standardOutput.write($0) })
            let (rows, sourceText, encoding) = try await runner.run { event in
                switch event {
                case .progress(let line): if showProgress { StatsLine.show(line, in: invocation) }
                case .started(let source, let encoding): rowPrinter.printHeading(source: source, encoding: encoding)
                case .measured(let row): rowPrinter.printRow(row)
                }
            }
            StatsLine.clear()
            guard !rows.isEmpty else { return }
            let report = BenchReport(source: sourceText, encoding: encoding, seconds: Double(seconds), rows: rows)
            if format == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.output(String(decoding: try encoder.encode(report), as: UTF8.self))
            }
            if let plot {
                let file = try TextOutput.open(plot, flag: "--plot")
                if let code = file.write(report.svg(machine: MachineName.current)) {
                    throw PodiumError.io("\(file.name) cannot be written: \(String(cString: strerror(code)))")
                }
                if !quiet { Console.say("wrote the chart to \(plot)") }
            }
        }
    }
}

/// How `podium bench` prints its results.
enum BenchFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, csv
}
