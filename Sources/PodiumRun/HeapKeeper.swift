import CMalloc
import PodiumCore

/// Gives the heap pages that guests left free back to the system. Each TCP guest and browser
/// viewer allocates on its own thread, so glibc spreads them over several arenas; when they leave,
/// the freed memory sits in holes that glibc keeps unless asked, and a long run with guests coming
/// and going would creep up in resident size. Asked once after guests left, never on a frame's path.
public enum HeapKeeper {
    /// Caps glibc's arenas at four. It makes one for each thread that allocates while the others
    /// are busy, up to eight a core, and every arena keeps a few hundred KB of its own however much
    /// is freed; a run whose guests come and go, each on a new thread, would grow by an arena now
    /// and then for its first hour. Podium's real-time threads allocate nothing on their paths, so
    /// sharing arenas costs no waiting. Call first thing, before any thread starts.
    public static func limitArenas() {
        mallopt(M_ARENA_MAX, 4)
    }

    /// Until cancelled: every `interval`, trims the heap if a guest or viewer came or went since the last look.
    static func keep(_ run: Run, every interval: Duration = .seconds(10)) async {
        var seen = turnover(run)
        while (try? await Task.sleep(for: interval)) != nil {
            let now = turnover(run)
            guard now != seen else { continue }
            seen = now
            malloc_trim(0)
        }
    }

    /// Guests that left the hub, and browser viewers that left, since the run began.
    private static func turnover(_ run: Run) -> Int {
        guard let viewers = run.counters.viewers else { return run.hub.departures }
        return run.hub.departures + viewers.totals.joined - viewers.watching.count
    }
}
