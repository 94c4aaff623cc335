import Foundation
import PodiumTestSupport
import Testing

/// `--max-cpu`: on a 1080p screen of moving video, Podium finds the rate its budget affords within
/// seconds, holds it within the budget without dropping frames, and steps down when the machine
/// gets busier. CPU is read from `/proc`, outside Podium.
@Suite(.serialized) struct BudgetTests {
    /// Podium's CPU time so far, in seconds, as the kernel counts it (`/proc/PID/stat`).
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Cores `run` used in each second it ran, until it ends, with the wall-clock second of each.
    static func follow(_ run: RunningCommand, every interval: Double = 1, during action: (Double) -> Void)
        -> [(second: Double, cores: Double)] {
        let start = Date()
        var samples: [(Double, Double)] = []
        var last = cpuSeconds(run.pid) ?? 0
        while run.isRunning {
            Thread.sleep(forTimeInterval: interval)
            guard let now = cpuSeconds(run.pid) else { break }
            let elapsed = Date().timeIntervalSince(start)
            samples.append((elapsed, (now - last) / interval))
            last = now
            action(elapsed)
        }
        return samples
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// One try: what 60 fps costs now, then a run held to half of it, the machine made much busier
    /// from its 14th second.
    struct Trial {
        var budget: Double
        var cost: Double
        var result: CommandResult
        var lines: [[String: Any]]
        var cores: [(second: Double, cores: Double)]

        /// Stepped down by the budget within 5 s, to a rate from 10 to 59 fps, held from 6 s to 14 s
        /// within 30 % under the budget and 10 % over.
        var settledInBounds: Bool {
            let changes = lines.filter { $0["kind"] as? String == "change" }
            let rates = lines.filter { $0["kind"] as? String == "interval" }
                .map { ($0["elapsed"] as? Double ?? 0, $0["targetFPS"] as? Int ?? 0) }
            let settled = rates.first { $0.0 >= 5 }?.1 ?? 60
            let held = BudgetTests.median(cores.filter { $0.second >= 6 && $0.second < 14 }.map(\.cores))
            return (changes.first?["elapsed"] as? Double ?? 99) <= 5 && (10..<60).contains(settled)
                && held >= budget * 0.7 && held <= budget * 1.1
        }
    }

    static func settle(_ arguments: [String], folder: URL, name: String) throws -> Trial {
        // What 60 fps costs here, to set the budget at about half of it.
        // (The first seconds are the start's, and the scene's.)
        func measured() throws -> Double {
            let full = try Tools.start(Tools.podium.path, arguments + ["--fps", "60", "-t", "6s"])
            defer { _ = try? full.wait() }
            return Self.median(Self.follow(full) { _ in }.dropFirst(2).map(\.cores))
        }
        // Measured again when it came out too cheap to halve: once, after the suites before it, the
        // scene drew so few frames that 60 fps cost 0.26 cores, where it costs 0.6.
        var cost = try measured()
        if cost < 0.3 { cost = try measured() }
        let budget = (cost / 2 * 100).rounded() / 100
        try #require(budget >= 0.15, "60 fps costs \(cost) cores here: too little to halve")

        let stats = folder.appendingPathComponent("\(name).json").path
        let run = try Tools.start(Tools.podium.path, arguments + ["--fps", "60", "--max-cpu", "\(budget)", "-t", "24s",
                                                                  "--stats-json", stats])
        var burners: [RunningCommand] = []
        let cores = Self.follow(run) { second in
            // At 14 s, the machine gets much busier: three burners for each core. A shell's loop,
            // the child `timeout` stops: a python3 that is pyenv's shim ran as a grandchild, which
            // outlived both and burned a core until it was found.
            guard second >= 14, burners.isEmpty else { return }
            let count = 3 * ProcessInfo.processInfo.activeProcessorCount
            burners = (0..<count).compactMap { _ in
                try? Tools.start("timeout", ["12", "sh", "-c", "while :; do :; done"])
            }
        }
        burners.forEach { $0.signal(SIGTERM) }
        let result = try run.wait()
        #expect(result.status == 0, "\(result.stderr)")

        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return Trial(budget: budget, cost: cost, result: result, lines: lines, cores: cores)
    }

    @Test func theRateSettlesWithinTheBudgetAndStepsDownWhenTheMachineIsBusier() throws {
        let server = try XvfbServer(width: 1920, height: 1080)
        let folder = try Tools.temporaryFolder()
        let scene = try Tools.scene("video", on: server.display, fps: 60)
        defer { _ = try? scene.interrupt() }
        let port = Tools.freePort()
        let arguments = ["stream", "--display", server.display, "--quiet", "--to", "udp://127.0.0.1:\(port)"]

        // A shared machine's load can make 60 fps cost half or twice as much a few seconds after it
        // was measured (the scene draws fewer frames, or more): a try that did not settle within its
        // bounds (a fresh-clone run measured 0.65 cores, then held 17 fps at 0.22 of a 0.33 budget)
        // is made once more, from a new measurement, and the second is the one judged.
        var trial = try Self.settle(arguments, folder: folder, name: "budget")
        if !trial.settledInBounds { trial = try Self.settle(arguments, folder: folder, name: "again") }
        let (budget, cost, result, lines, cores) = (trial.budget, trial.cost, trial.result, trial.lines, trial.cores)
        let changes = lines.filter { $0["kind"] as? String == "change" }
        let samples = lines.filter { $0["kind"] as? String == "interval" }
        let rates = samples.map { ($0["elapsed"] as? Double ?? 0, $0["targetFPS"] as? Int ?? 0) }
        let report = "budget \(budget) of \(cost) cores at 60 fps; rates \(rates.map { "\($0.1)" }); "
            + "cores \(cores.map { ($0.cores * 100).rounded() / 100 }); changes \(changes)"
        // Settled within 5 s: stepped down to what the budget affords, once.
        let first = try #require(changes.first, "\(report)")
        #expect((first["elapsed"] as? Double ?? 99) <= 5 && first["by"] as? String == "budget", "\(report)")
        let settled = rates.first { $0.0 >= 5 }?.1 ?? 60
        #expect(settled < 60 && settled >= 10, "\(report)")
        // Held from 5 s to 14 s: near the budget, every frame kept. Within 10 % over; under, within
        // 30 %: this is the first rate, read off the one rate measured so far (60 fps, whose cost
        // on a shared machine varies by a tenth), and the budget climbs closer only after 10 s of
        // calm (a CI run held 77 % here, others 80-90 %).
        let held = cores.filter { $0.second >= 6 && $0.second < 14 }.map(\.cores)
        #expect(Self.median(held) <= budget * 1.1 && Self.median(held) >= budget * 0.7, "\(report)")
        let dropped = samples.filter { ($0["elapsed"] as? Double ?? 0) >= 5 && ($0["elapsed"] as? Double ?? 0) < 14 }
            .reduce(0) { $0 + (($1["drops"] as? [String: Int])?["encoder"] ?? 0) }
        #expect(dropped == 0, "\(report)")
        // Busier: down soon after trouble, said by the budget. Its rule: two seconds in a row of
        // trouble (a frame dropped, or a frame's work over 80 % of its interval); one alone is noise.
        // The burners do not trouble a run at once, nor always: a CI run held 30 fps at 0.34 cores
        // for 8 s under them before its encoder dropped a frame. So the step is timed from the
        // trouble, and a run the busier machine left room enough has no reason to step.
        let busier = changes.filter { ($0["elapsed"] as? Double ?? 0) >= 14 }
        let down = busier.first { Int($0["to"] as? String ?? "") ?? 99 < Int($0["from"] as? String ?? "") ?? 0 }
        let troubled = samples.filter { ($0["elapsed"] as? Double ?? 0) >= 14 }.map { sample in
            let rate = Double(sample["targetFPS"] as? Int ?? 1)
            let stages = sample["stages"] as? [String: [String: Double]]
            let coding = (stages?["encode"]?["p50"] ?? 0) + (stages?["convert"]?["p50"] ?? 0)
            let work = max(stages?["grab"]?["p50"] ?? 0, coding)
            let trouble = ((sample["drops"] as? [String: Int])?["encoder"] ?? 0) > 0 || work > 800 / rate
            return (elapsed: sample["elapsed"] as? Double ?? 0, trouble: trouble)
        }
        let troubleSeen = zip(troubled, troubled.dropFirst()).first { $0.trouble && $1.trouble }?.1.elapsed
        if let troubleSeen, troubleSeen <= 21 {
            #expect(down.map { ($0["elapsed"] as? Double ?? 99) <= troubleSeen + 2 } == true, "\(report)")
        }
        #expect(result.stderr.isEmpty || !result.stderr.contains("error"), "\(result.stderr)")
    }
}
