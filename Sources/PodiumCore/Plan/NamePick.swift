/// The one of several things (cameras, sound sources) a user's name means: the one whose first
/// name is that name exactly, or else the only one one of whose names contains it, in any case.
public enum NamePick<Item> {
    case found(Item)
    case none
    /// Several contain it: a longer part of the name is needed.
    case several([Item])

    /// - Parameter names: an item's names, the exact one first (a node name, a device path),
    ///   then those a person calls it by (its description).
    public init(_ name: String, from items: [Item], names: (Item) -> [String]) {
        if let exact = items.first(where: { names($0).first == name }) {
            self = .found(exact)
            return
        }
        let wanted = name.lowercased()
        let matches = items.filter { names($0).contains { $0.lowercased().contains(wanted) } }
        switch matches.count {
        case 0: self = .none
        case 1: self = .found(matches[0])
        default: self = .several(matches)
        }
    }
}

extension NamePick where Item: CustomStringConvertible {
    /// The one of `items` a user's `name` means (the first when `nil`), as `init` picks it.
    /// - Parameters:
    ///   - kind: what they are, for the messages (`camera`).
    ///   - listing: what there is, said when none is meant (`cameras here: …`).
    /// - Throws: 69 when none is (with `listing`), 64 when several are (naming them).
    public static func select(_ name: String?, from items: [Item], kind: String, listing: String,
                              names: (Item) -> [String]) throws(PodiumError) -> Item {
        guard let name else {
            guard let first = items.first else { throw .unavailable("no \(kind): \(listing)") }
            return first
        }
        switch NamePick(name, from: items, names: names) {
        case .found(let item): return item
        case .none: throw .unavailable("\(kind) '\(name)': no such \(kind); \(listing)")
        case .several(let matches):
            throw .usage("\(kind) '\(name)' matches \(matches.count) \(kind)s: "
                         + matches.map(\.description).joined(separator: ", ") + "; give more of its name")
        }
    }
}
