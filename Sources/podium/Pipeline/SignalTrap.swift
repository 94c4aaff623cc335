import Dispatch
import Foundation

/// SIGINT and SIGTERM while a run is going: the first asks for a clean stop, a second SIGINT
/// exits at once (status 130, as a shell reports an interrupted command).
final class SignalTrap: Sendable {
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    init(onFirst: @escaping @Sendable (String) -> Void) {
        let queue = DispatchQueue(label: "podium.signals")
        let received = Counter()
        sources = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.increment() == 1 {
                    onFirst(name)
                } else if number == SIGINT {
                    StatsLine.clear()
                    Console.say("interrupted again: quitting without finalizing outputs")
                    _exit(130)
                }
            }
            source.resume()
            return source
        }
    }

    /// Restores the default handling.
    func cancel() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// Touched only on the signal queue.
    private final class Counter: @unchecked Sendable {
        private var count = 0
        func increment() -> Int {
            count += 1
            return count
        }
    }
}
