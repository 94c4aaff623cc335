import Crypto
import Foundation
import NIOCore
import PodiumCore

/// One of the server's pages, built into the binary: its HTML with its styles and scripts put
/// inline. The Content-Security-Policy names the hashes of exactly those, so nothing else runs
/// or styles the page.
struct ViewerPage: Sendable {
    let body: ByteBuffer
    let contentSecurityPolicy: String

    /// The viewer's page, which sends the pointer and keys too when its link has an input token.
    static let viewer = ViewerPage(html: PackageResources.viewer_html, styles: [PackageResources.viewer_css],
                                   scripts: [PackageResources.viewer_js, PackageResources.input_js])
    /// The remote's page: the viewer's preview (its script and style) with the presenter's buttons,
    /// one for each live action that has one; the replay's is shown while the run keeps a replay.
    static let remote = ViewerPage(html: PackageResources.remote_html,
                                   styles: [PackageResources.viewer_css, PackageResources.remote_css],
                                   scripts: [PackageResources.viewer_js, PackageResources.remote_js],
                                   buttons: LiveAction.all.compactMap(button).joined(separator: "\n"))

    /// The remote's button for `action`, if it has one.
    private static func button(_ action: LiveAction) -> String? {
        guard let label = action.button else { return nil }
        let replay = action.shown == .replay ? #" id="save" hidden"# : ""
        return #"<button type="button" data-key="\#(action.key.xmlEscaped)"\#(replay)>\#(label.xmlEscaped)</button>"#
    }

    private init(html: [UInt8], styles: [[UInt8]], scripts: [[UInt8]], buttons: String = "") {
        let style = styles.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        let script = scripts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        // The buttons first: nothing is replaced inside the script, whose hash the policy names.
        let page = String(decoding: html, as: UTF8.self)
            .replacingOccurrences(of: "<!--BUTTONS-->", with: buttons)
            .replacingOccurrences(of: "/*STYLE*/", with: style)
            .replacingOccurrences(of: "/*SCRIPT*/", with: script)
        body = ByteBuffer(string: page)
        contentSecurityPolicy = [
            "default-src 'none'",
            "script-src '\(Self.hash(script))'",
            "style-src '\(Self.hash(style))'",
            // The stream's WebSocket and the remote's requests, on this very host and port.
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
