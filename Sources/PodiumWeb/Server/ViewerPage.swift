import Crypto
import Foundation
import NIOCore

/// The viewer's one page: `viewer.html` with `viewer.css` and `viewer.js` put inline, built into
/// the binary. The Content-Security-Policy names the hashes of exactly those, so nothing else
/// runs or styles the page.
struct ViewerPage: Sendable {
    let body: ByteBuffer
    let contentSecurityPolicy: String

    init() {
        let style = String(decoding: PackageResources.viewer_css, as: UTF8.self)
        let script = String(decoding: PackageResources.viewer_js, as: UTF8.self)
        let html = String(decoding: PackageResources.viewer_html, as: UTF8.self)
            .replacingOccurrences(of: "/*STYLE*/", with: style)
            .replacingOccurrences(of: "/*SCRIPT*/", with: script)
        body = ByteBuffer(string: html)
        contentSecurityPolicy = [
            "default-src 'none'",
            "script-src '\(Self.hash(script))'",
            "style-src '\(Self.hash(style))'",
            // The stream's WebSocket, on this very host and port.
            "connect-src 'self'",
            "media-src blob:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    private static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }
}
