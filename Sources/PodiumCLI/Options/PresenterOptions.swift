import ArgumentParser
import PodiumCore

/// The presenter's tools on the picture: the pointer's highlight, the zoom, privacy masks and the
/// border around what is captured.
struct PresenterOptions: ParsableArguments {
    @Option(name: .customLong("highlight-pointer"),
            help: ArgumentHelp("A translucent disc under the pointer, and a ring at each click (default: yellow,40); "
                               + "h turns it on and off.", valueName: "COLOR[,RADIUS]"),
            transform: parsed(PointerHighlight.init(parsing:)))
    var highlight: PointerHighlight?

    @Option(help: ArgumentHelp("Magnify the picture 2 or 4 times around the pointer, following it; z steps "
                               + "through 1, 2 and 4.", valueName: "N"))
    var zoom = 1

    @Flag(name: .customLong("pen-keep"),
          help: "Keep the pen's strokes on the screen when pen mode ends (d, Escape), until e erases them.")
    var penKeepsStrokes = false

    @Option(name: .customLong("mask-window"),
            help: ArgumentHelp("Paint this window black in every frame, wherever it goes: a part of its title, or "
                               + "class:NAME (see 'podium windows'). Repeatable.", valueName: "NAME|class:NAME"),
            transform: parsed(PrivacyMasks.Rule.init(parsing:)))
    var maskWindows: [PrivacyMasks.Rule] = []

    @Option(name: .customLong("mask"),
            help: ArgumentHelp("Paint notification pop-ups black (windows of type NOTIFICATION).",
                               valueName: "notifications"))
    var maskKinds: [MaskKind] = []

    @Flag(name: .customLong("show-region"),
          help: "Draw a thin border around the captured area on its own screen, outside the picture.")
    var showsRegion = false

    enum MaskKind: String, ExpressibleByArgument {
        case notifications
    }

    var masks: PrivacyMasks {
        PrivacyMasks(windows: maskWindows, notifications: maskKinds.contains(.notifications))
    }

    func validate() throws {
        guard PresenterTools.zoomFactors.contains(zoom) else {
            throw ValidationError("--zoom '\(zoom)' must be one of "
                                  + PresenterTools.zoomFactors.map(String.init).joined(separator: ", "))
        }
    }
}
