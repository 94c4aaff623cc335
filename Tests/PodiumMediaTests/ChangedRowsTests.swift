import CFFmpeg
import PodiumCore
@testable import PodiumMedia
import PodiumTestSupport
import Testing

/// Converting only the rows that changed must give exactly the picture a whole conversion gives.
@Suite struct ChangedRowsTests {
    static let size = PixelSize(width: 640, height: 480)

    /// A frame of `pattern`, with the rows in `bands` taken from `changes`.
    func frame(_ pattern: TestPattern, changes: TestPattern? = nil, in bands: [Range<Int>] = [],
               sequence: UInt64) -> (CapturedFrame, HeapStorage) {
        var bytes = pattern.bgra
        if let changes {
            for band in bands {
                bytes.replaceSubrange(band.lowerBound * 2560..<band.upperBound * 2560,
                                      with: changes.bgra[band.lowerBound * 2560..<band.upperBound * 2560])
            }
        }
        let storage = HeapStorage(capacity: bytes.count)
        bytes.withUnsafeBytes { storage.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        var rows = RowBands()
        for band in bands { rows.insert(band) }
        let buffer = FrameBuffer(bytes: storage.bytes, capacity: bytes.count, index: 0, storage: storage)
        let frame = CapturedFrame(buffer: buffer, size: Self.size, bytesPerRow: 2560, captureTime: 0, slotTime: 0,
                                  sequence: sequence, changedRows: rows)
        return (frame, storage)
    }

    func planes(_ frame: UnsafeMutablePointer<AVFrame>) -> [UInt8] {
        var bytes: [UInt8] = []
        for plane in 0..<3 {
            let (width, height) = plane == 0 ? (640, 480) : (320, 240)
            let stride = Int(withUnsafeBytes(of: frame.pointee.linesize) {
                $0.load(fromByteOffset: plane * 4, as: Int32.self)
            })
            let data = withUnsafeBytes(of: frame.pointee.data) {
                $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>.self)
            }
            for row in 0..<height { bytes += UnsafeBufferPointer(start: data + row * stride, count: width) }
        }
        return bytes
    }

    func picture() -> UnsafeMutablePointer<AVFrame> {
        let frame = av_frame_alloc()!
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = 640
        frame.pointee.height = 480
        av_frame_get_buffer(frame, 0)
        return frame
    }

    @Test(arguments: [[101..<140], [0..<1, 7..<8], [479..<480], [33..<34, 200..<263, 300..<301, 400..<470], [0..<480]])
    func changedRowsGiveTheWholeConversion(_ bands: [Range<Int>]) throws {
        let converter = try FrameConverter(source: Self.size, output: Self.size, format: AV_PIX_FMT_YUV420P,
                                           filter: .box)
        #expect(converter.convertsRows)
        let (before, beforeStorage) = frame(TestPattern(width: 640, height: 480, seed: 3), sequence: 0)
        let (after, afterStorage) = frame(TestPattern(width: 640, height: 480, seed: 3),
                                          changes: TestPattern(width: 640, height: 480, seed: 4), in: bands,
                                          sequence: 1)
        var partial: UnsafeMutablePointer<AVFrame>? = picture()
        var whole: UnsafeMutablePointer<AVFrame>? = picture()
        defer {
            av_frame_free(&partial)
            av_frame_free(&whole)
            _ = (beforeStorage, afterStorage)
        }
        converter.convert(before, into: partial!)
        converter.convert(after, rows: after.changedRows!, into: partial!)
        converter.convert(after, into: whole!)
        let (got, expected) = (planes(partial!), planes(whole!))
        #expect(got == expected, "\(zip(got, expected).count { $0 != $1 }) bytes differ")
        // And the change did reach the picture.
        converter.convert(before, into: whole!)
        #expect(planes(whole!) != got)
    }

    /// The window's path: redrawing only the rows that `RowBands.scaled` maps the changed rows
    /// to gives exactly the picture a whole scaling gives, for crops at odd offsets, shrinking
    /// (box), growing (bilinear) and copying.
    @Test(arguments: [
        (PixelRect(x: 0, y: 0, width: 640, height: 480), PixelSize(width: 427, height: 320), ScaleFilter.box),
        (PixelRect(x: 13, y: 7, width: 600, height: 451), PixelSize(width: 1000, height: 751), ScaleFilter.bilinear),
        (PixelRect(x: 0, y: 0, width: 640, height: 480), PixelSize(width: 320, height: 240), ScaleFilter.box),
        (PixelRect(x: 5, y: 3, width: 630, height: 470), PixelSize(width: 630, height: 470), ScaleFilter.box),
    ])
    func windowRowsGiveTheWholeScaling(_ crop: PixelRect, _ output: PixelSize, _ filter: ScaleFilter) throws {
        let scaler = try PictureScaler(crop: crop.size, output: output, filter: filter)
        #expect(scaler.scalesRows)
        for bands in [[101..<140], [0..<1, 7..<8], [479..<480], [33..<34, 200..<263, 300..<301, 400..<470],
                      [0..<5, 470..<480]] {
            let (before, beforeStorage) = frame(TestPattern(width: 640, height: 480, seed: 3), sequence: 0)
            let (after, afterStorage) = frame(TestPattern(width: 640, height: 480, seed: 3),
                                              changes: TestPattern(width: 640, height: 480, seed: 4), in: bands,
                                              sequence: 1)
            var partial = [UInt8](repeating: 0, count: output.area * 4)
            var whole = partial
            let stride = output.width * 4
            partial.withUnsafeMutableBytes {
                scaler.scale(before, from: crop, into: $0.baseAddress!, bytesPerRow: stride)
            }
            let rows = after.changedRows!.scaled(from: crop.y..<crop.maxY, toHeight: output.height)
            partial.withUnsafeMutableBytes {
                scaler.scale(after, from: crop, rows: rows, into: $0.baseAddress!, bytesPerRow: stride)
            }
            whole.withUnsafeMutableBytes { scaler.scale(after, from: crop, into: $0.baseAddress!, bytesPerRow: stride) }
            _ = (beforeStorage, afterStorage)
            let differing = zip(partial, whole).count { $0 != $1 }
            #expect(differing == 0, "bands \(bands): \(differing) bytes differ")
        }
    }

    @Test func libswscaleFiltersRedrawWholeWindowPictures() throws {
        let scaler = try PictureScaler(crop: Self.size, output: PixelSize(width: 320, height: 240), filter: .lanczos)
        #expect(!scaler.scalesRows)
    }

    @Test func scalingConvertersRedoWholePictures() throws {
        let scaling = try FrameConverter(source: Self.size, output: PixelSize(width: 320, height: 240),
                                         format: AV_PIX_FMT_YUV420P, filter: .box)
        let libswscale = try FrameConverter(source: Self.size, output: Self.size, format: AV_PIX_FMT_YUV420P,
                                            filter: .bicubic, libswscaleOnly: true)
        #expect(!scaling.convertsRows && !libswscale.convertsRows)
    }
}
