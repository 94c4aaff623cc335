public import Foundation

/// What each sound test starts with: a private 320x240 display, and a folder of its own.
public struct PrivateDesk: Sendable {
    public let display: XvfbServer
    public let folder: URL

    public init() throws {
        display = try XvfbServer(width: 320, height: 240)
        folder = try Tools.temporaryFolder()
    }

    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}
