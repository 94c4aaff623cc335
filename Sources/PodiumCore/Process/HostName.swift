import Foundation

/// This machine's name, as `gethostname` gives it; `nil` when it has none.
public var hostName: String? {
    var name = [CChar](repeating: 0, count: 256)
    // One byte short of the buffer, so the name is always terminated.
    guard gethostname(&name, name.count - 1) == 0 else { return nil }
    let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return host.isEmpty ? nil : host
}
