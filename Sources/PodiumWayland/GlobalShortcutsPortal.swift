import CPortal
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// The presenter's keys held by the desktop through its GlobalShortcuts portal
/// (`org.freedesktop.portal.GlobalShortcuts`): how GNOME and KDE give a program keys that work
/// whatever has the focus, the desktop asking the user to confirm them. The desktop may bind
/// other keys than those asked for; it says which, and those are the ones said.
public enum GlobalShortcutsPortal {
    /// Binds `hotkeys` and hands on each press until `isStopping`, on the calling thread (the
    /// session lives as long as its bus connection, which is this thread's).
    /// - Parameters:
    ///   - bound: called once, with the keys the desktop bound and its words for them.
    ///   - pressed: called for each key pressed.
    /// - Returns: why the desktop ended the session; `nil` when the run stopped.
    /// - Throws: 69 when there is no portal with global shortcuts, or it refuses; 77 when the
    ///   user cancels its dialog.
    public static func hold(_ hotkeys: Hotkeys, isStopping: @escaping @Sendable () -> Bool,
                            bound: ([(action: LiveAction, trigger: String)]) -> Void,
                            pressed: (LiveAction) -> Void) throws(PodiumError) -> String? {
        let ids = hotkeys.bindings.map { strdup($0.action.name) }
        let descriptions = hotkeys.bindings.map { strdup("Podium: \($0.action.purpose)") }
        let triggers = hotkeys.bindings.map { strdup($0.key.portalTrigger) }
        defer { (ids + descriptions + triggers).forEach { free($0) } }
        let heard = Unmanaged.passRetained(Heard(isStopping))
        defer { heard.release() }
        var session: OpaquePointer?
        var error = [CChar](repeating: 0, count: 512)
        let code = (ids.map { UnsafePointer($0) }).withUnsafeBufferPointer { ids in
            (descriptions.map { UnsafePointer($0) }).withUnsafeBufferPointer { descriptions in
                (triggers.map { UnsafePointer($0) }).withUnsafeBufferPointer { triggers in
                    cportal_shortcuts_open(UInt32(ids.count), ids.baseAddress, descriptions.baseAddress,
                                           triggers.baseAddress, { context in
                        guard let context else { return 0 }
                        return Unmanaged<Heard>.fromOpaque(context).takeUnretainedValue().isStopping() ? 1 : 0
                    }, heard.toOpaque(), Heard.take, &session, &error, error.count)
                }
            }
        }
        guard code == Int32(CPORTAL_OK), let session else {
            let said = String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
            throw code == Int32(CPORTAL_CANCELLED) ? .refused(said) : .unavailable(said)
        }
        defer { cportal_close(session) }
        bound(heard.takeUnretainedValue().drain().compactMap { id, trigger in
            LiveAction.named(id).map { (action: $0, trigger: trigger) }
        })
        while !isStopping() {
            let closed = cportal_shortcuts_wait(session, 100_000, Heard.take, heard.toOpaque()) != 0
            for (id, _) in heard.takeUnretainedValue().drain() {
                if let action = LiveAction.named(id) { pressed(action) }
            }
            if closed { return "the desktop ended the global keys' session" }
        }
        return nil
    }

    /// What the portal said while a call was made (shortcuts bound, keys pressed), gathered by
    /// the C callback and taken after it on the same thread.
    private final class Heard {
        let isStopping: @Sendable () -> Bool
        private var said: [(id: String, trigger: String)] = []

        init(_ isStopping: @escaping @Sendable () -> Bool) {
            self.isStopping = isStopping
        }

        static let take: cportal_shortcut_handler = { context, id, trigger in
            guard let context, let id else { return }
            Unmanaged<Heard>.fromOpaque(context).takeUnretainedValue().said
                .append((String(cString: id), trigger.map { String(cString: $0) } ?? ""))
        }

        func drain() -> [(id: String, trigger: String)] {
            defer { said = [] }
            return said
        }
    }
}
