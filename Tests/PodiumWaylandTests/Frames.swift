import Foundation
import PodiumCore
import PodiumTestSupport

/// Looks at `grabber` every 10 ms, as a run's slots would, until it hands on a frame that
/// `accepts`: a compositor or a producer draws when it likes, so a test waits for the picture it
/// asked for rather than for a time.
/// - Throws: when no such frame came within `timeout` seconds, or the grabber failed.
func nextFrame<Grabber: FrameGrabber>(of grabber: inout Grabber, timeout: Double = 5,
                                      where accepts: (CapturedFrame) -> Bool = { _ in true }) throws -> CapturedFrame {
    let clock = MonotonicClock()
    let deadline = Date(timeIntervalSinceNow: timeout)
    var sequence: UInt64 = 0
    var last: CapturedFrame?
    while Date() < deadline {
        let now = clock.now()
        if case .frame(let frame) = try grabber.capture(sequence: sequence, time: now, slotTime: now,
                                                          evenIfUnchanged: false) {
            if accepts(frame) { return frame }
            last = frame
        }
        sequence += 1
        Thread.sleep(forTimeInterval: 0.01)
    }
    throw TestFailure("no such frame within \(timeout) s; the last one: \(last.map(describe) ?? "none")")
}

/// A frame's size and the colour at its corners and centre, for a failure's message.
func describe(_ frame: CapturedFrame) -> String {
    let (width, height) = (frame.size.width, frame.size.height)
    let points = [(0, 0), (width - 1, 0), (width / 2, height / 2), (0, height - 1), (width - 1, height - 1)]
    return "\(frame.size): " + points.map { "(\($0.0),\($0.1)) \(frame.rgb(x: $0.0, y: $0.1))" }.joined(separator: ", ")
}

extension CapturedFrame {
    /// The pixel at (`x`, `y`) as red, green and blue, from the frame's BGRx bytes.
    func rgb(x: Int, y: Int) -> [Int] {
        let pixel = (buffer.bytes + y * bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        return [Int(pixel[2]), Int(pixel[1]), Int(pixel[0])]
    }

    /// How many pixels of `rect` are not `colour` (red, green, blue): 0 for a picture as drawn.
    func pixels(in rect: PixelRect, otherThan colour: [Int]) -> Int {
        var wrong = 0
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX where rgb(x: x, y: y) != colour { wrong += 1 }
        }
        return wrong
    }
}
