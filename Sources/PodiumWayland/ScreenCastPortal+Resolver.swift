public import PodiumCore

extension ScreenCastPortal {
    /// Finds what the user shares through the desktop's ScreenCast portal (`portal`): asked in
    /// its dialog, or the choice kept from the last run (the portal hands back a new token to
    /// keep each time).
    public struct Resolver: SourceResolver {
        public init() {}

        /// - Throws: 77 when the user cancels; 69 when there is no portal or it fails; 130 when
        ///   the user stops the run while the dialog waits.
        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard lookup.request == .portal else { return nil }
            if lookup.forgetsChoice { PortalChoice.forget() }
            let remembered = PortalChoice.remembered()
            if remembered == nil { lookup.events(.portalDialog) }
            let portal: ScreenCastPortal
            do {
                portal = try ScreenCastPortal(drawsCursor: lookup.drawsCursor, restoreToken: remembered,
                                              interrupted: lookup.stopRequested)
            } catch where lookup.stopRequested() {
                throw PodiumError(PodiumError.ExitCode(rawValue: 130), "stopped while the desktop asked what to share")
            }
            if let token = portal.shared.restoreToken, let problem = PortalChoice.keep(token) {
                lookup.events(.notice(problem))
            }
            var plan = try PipeWirePlan.look(node: portal.shared.node,
                                             name: "the \(portal.shared.kind) shared by the portal", remote: portal)
            plan.drawsCursor = lookup.drawsCursor
            if !portal.shared.cursorAsMetadata {
                plan.presenterToolsUnavailable = "the desktop's portal draws the pointer in without saying where"
            }
            return plan
        }
    }
}
