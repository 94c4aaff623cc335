import Foundation
import PodiumCore

/// What ran a benchmark, for the chart's title: figures mean little without the machine.
enum MachineName {
    /// The host name, with the CPU's model and the cores there are, such as
    /// `studio (AMD Ryzen 7 5800U with Radeon Graphics, 16 cores)`.
    static var current: String {
        let host = hostName ?? "this machine"
        let cores = "\(ProcessInfo.processInfo.activeProcessorCount) cores"
        return "\(host) (" + [cpuModel, cores].compactMap { $0 }.joined(separator: ", ") + ")"
    }

    /// The first `model name` of /proc/cpuinfo; `nil` where there is none (some ARM kernels).
    private static var cpuModel: String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line?.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
