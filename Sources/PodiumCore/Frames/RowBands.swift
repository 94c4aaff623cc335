/// A few bands of rows of a picture: where it changed. At most `capacity` bands, sorted and
/// apart; when one more would not fit, the two closest bands merge (covering rows in between).
/// A value type of fixed size, so the capture path can keep and pass it without allocating.
public struct RowBands: Sendable, Equatable, CustomStringConvertible {
    public static let capacity = 4
    private var bands: InlineArray<4, Range<Int>> = .init(repeating: 0..<0)
    public private(set) var count = 0

    public init() {}

    /// One band.
    public init(_ rows: Range<Int>) {
        insert(rows)
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(index: Int) -> Range<Int> {
        precondition(index < count, "band \(index) of \(count)")
        return bands[index]
    }

    /// How many rows the bands cover.
    public var rowCount: Int {
        var total = 0
        for index in 0..<count { total += bands[index].count }
        return total
    }

    /// Adds `rows`, joining the bands it touches.
    public mutating func insert(_ rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        var merged = rows
        var kept = InlineArray<4, Range<Int>>(repeating: 0..<0)
        var keptCount = 0
        var position = 0
        for index in 0..<count {
            let band = bands[index]
            if band.upperBound < merged.lowerBound {
                kept[keptCount] = band
                keptCount += 1
                position = keptCount
            } else if band.lowerBound > merged.upperBound {
                kept[keptCount] = band
                keptCount += 1
            } else {
                merged = min(band.lowerBound, merged.lowerBound)..<max(band.upperBound, merged.upperBound)
            }
        }
        // Insert `merged` at `position`, then merge the closest pair if one band too many.
        var result = InlineArray<5, Range<Int>>(repeating: 0..<0)
        var resultCount = 0
        for index in 0...keptCount {
            if index == position {
                result[resultCount] = merged
                resultCount += 1
            }
            if index < keptCount {
                result[resultCount] = kept[index]
                resultCount += 1
            }
        }
        if resultCount > Self.capacity {
            var closest = 0
            for index in 1..<(resultCount - 1) where result[index + 1].lowerBound - result[index].upperBound
                < result[closest + 1].lowerBound - result[closest].upperBound {
                closest = index
            }
            result[closest] = result[closest].lowerBound..<result[closest + 1].upperBound
            for index in (closest + 1)..<(resultCount - 1) { result[index] = result[index + 1] }
            resultCount -= 1
        }
        for index in 0..<resultCount { bands[index] = result[index] }
        count = resultCount
    }

    /// Whether a band shares a row with `rows`.
    public func intersects(_ rows: Range<Int>) -> Bool {
        for index in 0..<count where bands[index].overlaps(rows) { return true }
        return false
    }

    /// Adds every band of `other`.
    public mutating func formUnion(_ other: RowBands) {
        for index in 0..<other.count { insert(other[index]) }
    }

    /// The bands clipped to `0..<height`.
    public func clamped(toHeight height: Int) -> RowBands {
        var clipped = RowBands()
        for index in 0..<count {
            let top = min(height, max(0, bands[index].lowerBound))
            clipped.insert(top..<max(top, min(height, bands[index].upperBound)))
        }
        return clipped
    }

    /// The bands moved down by `rows` (up, for a negative count).
    public func offset(by rows: Int) -> RowBands {
        var moved = RowBands()
        for index in 0..<count { moved.insert((bands[index].lowerBound + rows)..<(bands[index].upperBound + rows)) }
        return moved
    }

    /// The rows of a scaled picture `height` rows high that may change when these rows change
    /// within `source`, the rows the picture is scaled from. A filter reads a row or so on
    /// either side of where it samples, so each band grows by one row before and after scaling;
    /// without scaling (`source.count == height`) rows map one to one.
    public func scaled(from source: Range<Int>, toHeight height: Int) -> RowBands {
        var result = RowBands()
        let sourceHeight = source.count
        guard sourceHeight > 0 else { return result }
        for index in 0..<count {
            let top = max(bands[index].lowerBound, source.lowerBound) - source.lowerBound
            let bottom = min(bands[index].upperBound, source.upperBound) - source.lowerBound
            guard top < bottom else { continue }
            if sourceHeight == height {
                result.insert(top..<bottom)
            } else {
                let first = max(0, (top - 1) * height / sourceHeight - 1)
                let last = min(height, ((bottom + 1) * height + sourceHeight - 1) / sourceHeight + 1)
                result.insert(first..<last)
            }
        }
        return result
    }

    public static func == (left: RowBands, right: RowBands) -> Bool {
        guard left.count == right.count else { return false }
        for index in 0..<left.count where left[index] != right[index] { return false }
        return true
    }

    public var description: String {
        (0..<count).map { "\(bands[$0].lowerBound)..<\(bands[$0].upperBound)" }.joined(separator: ", ")
    }
}
