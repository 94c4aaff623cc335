import Foundation
import PodiumCore

extension RemoteInput {
    /// The most events one request carries.
    static let mostInARequest = 128

    /// Reads the page's events: a JSON list of `["m", x, y]` (the pointer to a place of the
    /// picture, 0 to 1), `["b", button, 1|0]` (a button down or up) and `["k", key, 1|0]` (a key
    /// as the browser names it). Places are kept within the picture; keys without a keysym are
    /// left out.
    /// - Returns: `nil` when it is not such a list, or a longer one.
    static func events(fromJSON data: Data) -> [RemoteInput]? {
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[Any]],
              list.count <= mostInARequest else { return nil }
        var events: [RemoteInput] = []
        for item in list {
            switch (item.first as? String, item.count) {
            case ("m", 3):
                guard let x = (item[1] as? NSNumber)?.doubleValue, let y = (item[2] as? NSNumber)?.doubleValue,
                      x.isFinite, y.isFinite else { return nil }
                events.append(.move(x: min(1, max(0, x)), y: min(1, max(0, y))))
            case ("b", 3):
                guard let button = (item[1] as? NSNumber)?.intValue, let down = (item[2] as? NSNumber)?.intValue
                else { return nil }
                events.append(.button(button, down: down != 0))
            case ("k", 3):
                guard let name = item[1] as? String, let down = (item[2] as? NSNumber)?.intValue else { return nil }
                if let keysym = keysym(named: name) { events.append(.key(keysym, down: down != 0)) }
            default:
                return nil
            }
        }
        return events
    }
}
