import PodiumCore
import Foundation

/// The desktop's answer kept between runs: the ScreenCast portal's restore token, which lets the
/// next run share the same monitor or window without the dialog. It is worth a screen's
/// content to whoever holds it, so it is kept readable by its owner only and never said.
public enum PortalChoice {
    private static let file = "portal-choice"

    /// The token the last run kept; `nil` when there is none.
    public static func remembered() -> String? {
        guard let text = try? String(contentsOfFile: ConfigFolder.path + "/" + file, encoding: .utf8) else {
            return nil
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Keeps `token` for the next run (a portal hands out a new one each time).
    /// - Returns: why it could not be kept, to be said; `nil` when it was.
    public static func keep(_ token: String) -> String? {
        do {
            try ConfigFolder.write(token + "\n", to: file, permissions: 0o600)
            return nil
        } catch {
            return "could not keep the desktop's choice in \(ConfigFolder.path) (\(error.localizedDescription)): "
                + "the next run asks again"
        }
    }

    /// Forgets the kept choice (`--forget-choice`): the next run asks.
    public static func forget() {
        unlink(ConfigFolder.path + "/" + file)
    }
}
