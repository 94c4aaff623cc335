import Logging
import Synchronization

/// What the presenter's keys do: one map for the mirror window and the terminal.
public enum KeyCommand: Sendable, Equatable {
    /// Space: freeze the picture (capture pauses) or go on.
    case pause
    /// `q`, Escape: end the run cleanly, as Ctrl-C does.
    case quit
    /// `l`: the next layout of two sources.
    case cycleLayout
    /// `x`: swap the primary and the secondary.
    case swapSources
    /// `[` and `]`: move the split of `beside`, or resize the picture `over` the other, by one step.
    case resize(Int)
    /// `f`: fullscreen or not (the mirror window's own).
    case fullscreen
    /// `?`: the keys, said on one line.
    case help

    /// The command of a key, by its name (`space`, `Escape`, `l`), or `nil` for a key without one.
    public init?(key: String) {
        switch key {
        case "space", " ": self = .pause
        case "q", "Escape": self = .quit
        case "l": self = .cycleLayout
        case "x": self = .swapSources
        case "[": self = .resize(-1)
        case "]": self = .resize(1)
        case "f": self = .fullscreen
        case "?": self = .help
        default: return nil
        }
    }

    /// The keys, as `?` says them; those of layouts only when there are two sources.
    public static func help(layouts: Bool, window: Bool) -> String {
        var keys = ["space pause", "q quit"]
        if layouts { keys += ["l layout", "x swap sources", "[ ] resize"] }
        if window { keys.append("f fullscreen") }
        return "keys: " + keys.joined(separator: ", ")
    }
}

extension Run {
    /// Does what `command` asks of the run, and says so. The window's own commands (`fullscreen`)
    /// are the window's to do; a layout key without two sources does nothing.
    /// - Parameter window: the key was pressed in the mirror window, not in the terminal.
    public func perform(_ command: KeyCommand, window: Bool = false) {
        switch command {
        case .pause:
            let frozen = !paused.load(ordering: .relaxed)
            paused.store(frozen, ordering: .relaxed)
            logger.notice("\(frozen ? "frozen: capture paused; space to resume" : "resumed")")
        case .quit:
            logger.notice("quit from the \(window ? "window" : "terminal")")
            stop()
        case .cycleLayout:
            changeLayout { $0.cycle() }
        case .swapSources:
            changeLayout { $0.swapped.toggle() }
        case .resize(let steps):
            changeLayout { $0.resize(by: steps) }
        case .help:
            logger.notice("\(KeyCommand.help(layouts: layout != nil, window: window))")
        case .fullscreen:
            break
        }
    }

    private func changeLayout(_ body: (inout Layout) -> Void) {
        guard let layout, let changed = layout.change(body) else { return }
        logger.notice("layout: \(changed)")
    }
}
