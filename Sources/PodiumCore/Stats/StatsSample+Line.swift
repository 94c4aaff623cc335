/// The statistics as people read them: the live line, rewritten in place once a second, and the
/// closing summary. The words are the names `--stats-json` uses (drops `skipped`, `noBuffer`,
/// `encoder`, `sinks`, `window`; stages `grab`, `convert`, `encode`, `send`, `present`).
extension StatsSample {
    /// The live line. Not on a terminal (`width` nil), everything; on one, the most important
    /// parts that fit in `width - 1` columns (a line that reaches the last column wraps on some
    /// terminals): the elapsed time, the state, the rate and the drops first, the stage times last.
    public func line(width: Int? = nil) -> String {
        LinePart.fit(parts, width: width.map { $0 - 1 })
    }

    /// Everything, on one line: what a file or pipe gets once a second.
    public var line: String { line(width: nil) }

    /// The closing summary: every part, wrapped at `width` between parts (one line when `width` is
    /// nil). A part keeps what continues it (`drop 4 (skipped 4)`); one wider than `width` is
    /// wrapped between its words.
    public func summaryLines(width: Int?) -> [String] {
        let parts = parts
        let whole = LinePart.join(parts, parts.map { $0.forms[0] })
        guard let width else { return [whole] }
        var units: [String] = []
        for part in parts {
            if part.joinsPrevious, let last = units.popLast() {
                units.append(last + " " + part.forms[0])
            } else {
                units.append(part.forms[0])
            }
        }
        var lines: [String] = []
        var current = ""
        func add(_ text: String, separator: String) {
            if current.isEmpty {
                current = text
            } else if current.count + separator.count + text.count <= width {
                current += separator + text
            } else {
                lines.append(current)
                current = text
            }
        }
        for unit in units {
            guard unit.count > width else {
                add(unit, separator: "  ")
                continue
            }
            for (index, word) in unit.wrapped(width: width).enumerated() {
                add(word, separator: index == 0 ? "  " : " ")
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The parts in the order they are shown, each ranked by how much it matters (0 most).
    private var parts: [LinePart] {
        let summary = kind == "summary"
        var parts = [LinePart(elapsed.clock, rank: 0)]
        if let state { parts.append(LinePart(state, rank: 0)) }
        if let layout, !summary { parts.append(LinePart(layout, rank: 2)) }
        if let recording, !summary { parts.append(LinePart(recording.summary, rank: 0)) }
        for sink in sinks where !summary {
            guard let down = sink.downSeconds else { continue }
            let attempt = (sink.failedAttempts + 1).ordinal
            parts.append(LinePart("\(sink.url) reconnecting (\(attempt) try, down \(down.fixed()) s)", rank: 0,
                                  shorter: [(6, "reconnecting \(sink.url)"), (2, "reconnecting")]))
        }
        if let sound, sound.reconnecting, !summary {
            // With several sources, which one.
            let lost = sound.sources.count > 1 ? sound.sources.filter(\.reconnecting).map(\.name) : []
            parts.append(LinePart((["audio"] + lost).joined(separator: " ") + ": reconnecting", rank: 0))
        }
        if let presentedFPS {
            // Beside an encoder, the window's rate matters less than what is recorded or sent.
            parts.append(LinePart("presented \(presentedFPS.fixed())/\(targetFPS)", rank: renditions.isEmpty ? 0 : 5))
        }
        if !renditions.isEmpty {
            let auto = auto == true ? " auto" + (limitedBy.map { " (\($0))" } ?? "") : ""
            parts.append(LinePart("fps \(encodedFPS.fixed())/\(targetFPS)\(auto)", rank: 0))
        }
        parts.append(LinePart("drop \(drops.total)", rank: 1))
        let causes = [("skipped", drops.skipped), ("noBuffer", drops.noBuffer), ("encoder", drops.encoder),
                      ("sinks", drops.sinks), ("window", drops.window)].filter { $0.1 > 0 }
        if !causes.isEmpty {
            let text = "(" + causes.map { "\($0.0) \($0.1)" }.joined(separator: " ") + ")"
            parts.append(LinePart(text, rank: 7, joinsPrevious: true))
        }
        let failed = sinks.filter(\.failed).count
        if failed > 0 { parts.append(LinePart("\(failed) sink\(failed == 1 ? "" : "s") failed", rank: 1)) }
        if !renditions.isEmpty { parts.append(LinePart("\(mbps.fixed(2)) Mbit/s", rank: 2)) }
        let bytes = sinks.reduce(0) { $0 + $1.bytes }
        if bytes > 0 { parts.append(LinePart(bytes.byteCount + " out", rank: 3)) }
        parts.append(LinePart("cpu \(cpuCores.fixed(2))", rank: 3))
        if unchangedFPS > 0 {
            parts.append(LinePart("unchanged \(unchangedFPS.fixed())/s", rank: 5))
            // Repaints are slots where the screen was drawn on and nothing changed: looked at, then dropped.
            if repaintedFPS > 0 {
                parts.append(LinePart("(repainted \(repaintedFPS.fixed()))", rank: 8, joinsPrevious: true))
            }
        }
        if let sound, summary {
            // What the sound was encoded as, and the time it lost: dropped, or filled with silence.
            let lost = [(sound.droppedSeconds, "dropped"), (sound.silenceSeconds, "silence")].filter { $0.0 > 0 }
                .map { "\($0.0.fixed(1)) s \($0.1)" }
            let said = lost.isEmpty ? "" : " (" + lost.joined(separator: ", ") + ")"
            parts.append(LinePart("audio \(sound.name)" + said, rank: 4))
        } else if let sound, !sound.reconnecting {
            parts.append(LinePart(sound.peakDB.map { "audio \($0.fixed(0)) dB" } ?? "audio silent", rank: 4))
        }
        if let viewers { parts.append(LinePart(viewers.part(summary: summary), rank: 4)) }
        if let secondsAtRates, secondsAtRates.count > 1 {
            // `at 60 fps 12 s, 48 fps 30 s`, the highest rate first.
            let rates = secondsAtRates.compactMap { rate, seconds in Int(rate).map { ($0, seconds) } }
                .filter { $0.1 >= 0.5 }.sorted { $0.0 > $1.0 }.map { "\($0.0) fps \($0.1.fixed(0)) s" }
            parts.append(LinePart("at " + rates.joined(separator: ", "), rank: 4))
        }
        for sink in sinks {
            if !summary, let clients = sink.clients {
                parts.append(LinePart("\(clients) watching", rank: 4))
            } else if summary, sink.outages > 0 {
                let outages = "\(sink.outages) outage\(sink.outages == 1 ? "" : "s")"
                parts.append(LinePart("\(sink.url) \(outages), \(sink.secondsLost.fixed()) s lost", rank: 4))
            }
        }
        // The times go after the causes of drops and the repaints, but before the rest.
        parts.append(LinePart(stageTimes(percentiles: [\.p50, \.p95]), rank: 6,
                              shorter: [(9, stageTimes(percentiles: [\.p50]))]))
        return parts
    }

    /// `ms p50/p95 grab 0.4/0.6 convert 0.9/1.1 encode 7.1/9.0 send 0.1/0.1`, or with `p50` alone.
    private func stageTimes(percentiles: [KeyPath<StageTimes, Double>]) -> String {
        var stages = [("grab", self.stages.grab)]
        if presentedFPS != nil { stages.append(("present", self.stages.present)) }
        if !renditions.isEmpty {
            // With several encoders, the slowest one's times, named.
            let slowest = renditions.count > 1 ? renditions.max(by: { $0.encode.p95 < $1.encode.p95 }) : nil
            stages += [("convert", self.stages.convert), ("encode" + (slowest.map { "(\($0.name))" } ?? ""),
                                                          self.stages.encode)]
            if !sinks.isEmpty { stages.append(("send", self.stages.send)) }
        }
        let header = "ms " + (percentiles.count > 1 ? "p50/p95 " : "")
        return header + stages.map { name, times in
            name + " " + percentiles.map { times[keyPath: $0].fixed() }.joined(separator: "/")
        }.joined(separator: " ")
    }
}

/// One part of the line, in its forms from the fullest to the shortest.
private struct LinePart {
    var forms: [String]
    /// 0 for what is always shown; parts with the highest rank go first.
    var rank: Int
    /// The rank at which each shorter form replaces the one before it.
    var shortenRanks: [Int]
    /// Whether it continues the part before it (`drop 3 (skipped 3)`), after one space.
    var joinsPrevious: Bool

    init(_ text: String, rank: Int, shorter: [(rank: Int, text: String)] = [], joinsPrevious: Bool = false) {
        forms = [text] + shorter.map(\.text)
        shortenRanks = shorter.map(\.rank)
        self.rank = rank
        self.joinsPrevious = joinsPrevious
    }

    /// The parts, shortened and left out from the least important (the last of a rank first)
    /// until they fit in `width` columns; then what was left out is taken back, the most
    /// important first, while it fits after all (up to the first that does not: a less important
    /// figure never stands in for a more important one). What still does not fit is cut.
    static func fit(_ parts: [LinePart], width: Int?) -> String {
        var chosen = parts.map { _ in 0 }
        var shown = parts.map { _ in true }
        func text() -> String {
            let kept = parts.indices.filter { shown[$0] }
            return join(kept.map { parts[$0] }, kept.map { parts[$0].forms[chosen[$0]] })
        }
        guard let width else { return text() }
        /// The rank of a part's next step: its next shorter form, or leaving the line.
        func nextStep(_ index: Int) -> Int {
            let part = parts[index]
            return chosen[index] < part.shortenRanks.count ? part.shortenRanks[chosen[index]] : part.rank
        }
        var line = text()
        while line.count > width {
            guard let victim = parts.indices.filter({ shown[$0] && nextStep($0) > 0 })
                .max(by: { (nextStep($0), $0) < (nextStep($1), $1) }) else { break }
            if chosen[victim] < parts[victim].shortenRanks.count {
                chosen[victim] += 1
            } else {
                // A part that continues this one goes with it.
                let end = parts[(victim + 1)...].firstIndex { !$0.joinsPrevious } ?? parts.endIndex
                for index in victim..<end { shown[index] = false }
            }
            line = text()
        }
        let left = parts.indices.filter { !shown[$0] && !parts[$0].joinsPrevious }
        for index in left.sorted(by: { (parts[$0].rank, $0) < (parts[$1].rank, $1) }) {
            shown[index] = true
            let taken = text()
            guard taken.count <= width else {
                shown[index] = false
                break
            }
            line = taken
        }
        return line.count > width ? String(line.prefix(max(0, width))) : line
    }

    static func join(_ parts: [LinePart], _ texts: [String]) -> String {
        zip(parts, texts).enumerated().map { index, pair in
            index == 0 ? pair.1 : (pair.0.joinsPrevious ? " " : "  ") + pair.1
        }.joined()
    }
}

extension Double {
    /// Elapsed seconds as people read a clock: `12.0s` under a minute, then `2:05` and `1:02:05`.
    var clock: String {
        guard self >= 60 else { return fixed() + "s" }
        let seconds = Int(self)
        let (hours, minutes) = (seconds / 3600, seconds / 60 % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds % 60))" : "\(minutes):\(two(seconds % 60))"
    }
}

extension String {
    /// The words of this text in lines of at most `width` columns (a longer word has a line of its
    /// own). A figure stays with the word before it: `encode 3.8/6.4` is not cut.
    public func wrapped(width: Int) -> [String] {
        var words: [String] = []
        for word in split(separator: " ") {
            if word.first?.isNumber == true, let last = words.popLast() {
                words.append(last + " " + word)
            } else {
                words.append(String(word))
            }
        }
        var lines: [String] = []
        for word in words {
            if let last = lines.last, last.count + 1 + word.count <= width {
                lines[lines.count - 1] = last + " " + word
            } else {
                lines.append(word)
            }
        }
        return lines
    }
}

extension Int {
    /// A size for people: `812 kB`, `23.4 MB`, `1.21 GB` (powers of 1000, as disks are sold).
    public var byteCount: String {
        let value = Double(self)
        return switch value {
        case ..<1e6: "\((value / 1e3).fixed(0)) kB"
        case ..<1e9: "\((value / 1e6).fixed(1)) MB"
        default: "\((value / 1e9).fixed(2)) GB"
        }
    }
}
