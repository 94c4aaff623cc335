import Foundation

/// A headless GNOME compositor for one test: `mutter --headless` (Wayland, one virtual monitor
/// `Meta-0`, drawn in software) on a session bus of its own, beside a private PipeWire (a
/// `SoundServer`'s) that carries its screen casts. Root is fine for it. Stopped when released.
public final class MutterServer: Sendable {
    private let sound: SoundServer
    private let bus: RunningCommand
    private let mutter: RunningCommand
    /// What a client needs to reach this desktop: its session bus, its runtime folder (PipeWire's
    /// and the Wayland socket's) and its Wayland display.
    public let environment: [String: String]

    /// Starts PipeWire, a session bus and Mutter with one monitor of `width`x`height`, and waits
    /// until Mutter's screen casting answers.
    public init(width: Int = 1280, height: Int = 720) throws {
        sound = try SoundServer()
        bus = try Tools.start("dbus-daemon", ["--session", "--nofork", "--nopidfile", "--print-address=1"])
        var address = ""
        for _ in 0..<100 where address.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            address = bus.stdoutSoFar.split(separator: "\n").first.map(String.init) ?? ""
        }
        guard !address.isEmpty else { throw TestFailure("dbus-daemon gave no address: \(bus.stderrSoFar)") }
        let runtime = sound.folder.path
        environment = ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-0",
                       "PULSE_SERVER": sound.address]
        mutter = try Tools.start("mutter", ["--headless", "--wayland", "--no-x11", "--wayland-display", "wayland-0",
                                            "--virtual-monitor", "\(width)x\(height)"],
                                 environment: environment.merging(["HOME": runtime]) { $1 })
        for _ in 0..<200 where try monitors().isEmpty {
            Thread.sleep(forTimeInterval: 0.1)
        }
        guard try !monitors().isEmpty else {
            throw TestFailure("mutter did not start: \(mutter.stderrSoFar)")
        }
    }

    deinit {
        stop()
        _ = try? bus.interrupt(timeout: 5)
    }

    /// Ends Mutter now (to test what happens when the desktop goes away).
    public func stop() {
        _ = try? mutter.interrupt(timeout: 10)
    }

    /// The monitors as Mutter lays them out: `CONNECTOR WxH+X+Y` each (its mode's size, and
    /// ` scale S` after it when not 1), sorted; empty while it does not answer.
    public func monitors() throws -> [String] {
        let state = try Tools.start("busctl", ["--user", "--json=short", "call", "org.gnome.Mutter.DisplayConfig",
                                               "/org/gnome/Mutter/DisplayConfig", "org.gnome.Mutter.DisplayConfig",
                                               "GetCurrentState"], environment: environment).wait(timeout: 10)
        guard state.status == 0,
              let reply = try? JSONSerialization.jsonObject(with: Data(state.stdout.utf8)) as? [String: Any],
              let data = reply["data"] as? [Any], data.count >= 3,
              let monitors = data[1] as? [[Any]], let logical = data[2] as? [[Any]] else { return [] }
        // Each monitor's current mode's size, by connector.
        var sizes: [String: String] = [:]
        for monitor in monitors {
            guard let spec = monitor.first as? [Any], let connector = spec.first as? String,
                  let modes = monitor.dropFirst().first as? [[Any]] else { continue }
            for mode in modes where (mode.last as? [String: Any]).flatMap({ $0["is-current"] as? [String: Any] })?
                .values.contains(where: { $0 as? Bool == true }) == true {
                sizes[connector] = "\(mode[1])x\(mode[2])"
            }
        }
        return logical.flatMap { place -> [String] in
            guard place.count >= 6, let specs = place[5] as? [[Any]] else { return [] }
            let scale = (place[2] as? Double).flatMap { $0 == 1 ? nil : " scale \($0)" } ?? ""
            return specs.compactMap { $0.first as? String }
                .map { "\($0) \(sizes[$0] ?? "?")+\(place[0])+\(place[1])\(scale)" }
        }.sorted()
    }

    /// Opens a window titled `title` (a foot terminal running `command`, all of it `colour`,
    /// `RRGGBB`) where Mutter puts new windows: on the monitor the pointer is on.
    public func openWindow(_ title: String, colour: String, command: String = "sleep 600") throws -> RunningCommand {
        try Tools.start("foot", ["--title", title, "-o", "colors.background=\(colour)",
                                 "-o", "colors.foreground=\(colour)", "sh", "-c", command], environment: environment)
    }
}
