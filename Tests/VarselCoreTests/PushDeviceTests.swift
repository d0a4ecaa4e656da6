import Foundation
import Testing

@testable import VarselCore

/// Whether a device shows its pushes, and how that is said to a mentor.
@Suite("Push devices")
struct PushDeviceTests {
    let now = DemoData.now
    let oslo = TimeZone(identifier: "Europe/Oslo")!
    let day: TimeInterval = 86400

    @Test("a device is waiting, then shows, then is not confirmed after three unshown pushes or the stale time, or revoked")
    func health() {
        var device = PushDeviceStatus(name: "iPhone (Safari)", createdAt: now.addingTimeInterval(-10 * day))
        #expect(device.health(now: now, staleAfter: 3 * day) == .waiting)
        device.lastShownAt = now.addingTimeInterval(-2 * day)
        #expect(device.health(now: now, staleAfter: 3 * day) == .shows(lastShown: now.addingTimeInterval(-2 * day)))
        // Two unshown pushes, the first a day old: not stale yet.
        device.unshownCount = 2
        device.firstUnshownAt = now.addingTimeInterval(-day)
        #expect(device.health(now: now, staleAfter: 3 * day).isShowing)
        // A third: stale, since the last shown.
        device.unshownCount = 3
        #expect(device.health(now: now, staleAfter: 3 * day) == .notConfirmed(since: now.addingTimeInterval(-2 * day)))
        // One unshown push, older than the stale time: stale too; never shown, since that push.
        device = PushDeviceStatus(name: "Android (Chrome)", createdAt: now.addingTimeInterval(-10 * day), unshownCount: 1)
        device.firstUnshownAt = now.addingTimeInterval(-4 * day)
        #expect(device.health(now: now, staleAfter: 3 * day) == .notConfirmed(since: now.addingTimeInterval(-4 * day)))
        device.revokedAt = now.addingTimeInterval(-day)
        #expect(device.health(now: now, staleAfter: 3 * day) == .revoked(at: now.addingTimeInterval(-day)))
        #expect(!device.health(now: now, staleAfter: 3 * day).isShowing)
    }

    @Test("a device is named by its system and browser")
    func names() {
        let iPhone =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1"
        let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
        let firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
        let chromium = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chromium/156.0.0.0 Chrome/156.0.0.0 Safari/537.36"
        #expect(PushDeviceStatus.deviceName(userAgent: iPhone) == "iPhone (Safari)")
        #expect(PushDeviceStatus.deviceName(userAgent: android) == "Android (Chrome)")
        #expect(PushDeviceStatus.deviceName(userAgent: firefox) == "Windows (Firefox)")
        #expect(PushDeviceStatus.deviceName(userAgent: chromium) == "Linux (Chromium)")
        #expect(PushDeviceStatus.deviceName(userAgent: "") == "Browser")
    }

    @Test("each state is said with what to do, in English and Norwegian")
    func lines() {
        let device = PushDeviceStatus(name: "iPhone (Safari)", createdAt: now)
        let english = Strings(.english)
        let norwegian = Strings(.norwegianBokmal)
        let line = english.deviceLine(device, health: .shows(lastShown: now.addingTimeInterval(-60)), now: now, timeZone: oslo)
        #expect(line.wholeMatch(of: /iPhone \(Safari\), last notification shown today at \d{1,2}:\d{2}\s[AP]M/) != nil, "\(line)")
        #expect(
            english.deviceLine(device, health: .notConfirmed(since: now.addingTimeInterval(-4 * day)), now: now, timeZone: oslo)
                == "iPhone (Safari), not confirmed since \(english.longDate(now.addingTimeInterval(-4 * day), timeZone: oslo)): open Varsel on this phone to wake it up"
        )
        #expect(norwegian.deviceLine(device, health: .waiting, now: now, timeZone: oslo) == "iPhone (Safari), ingen varsler sendt dit ennå")
        #expect(english.dayAndTime(now.addingTimeInterval(-day), now: now, timeZone: oslo).hasPrefix("yesterday at "))
        #expect(norwegian.dayAndTime(now.addingTimeInterval(-60), now: now, timeZone: oslo).hasPrefix("i dag kl. "))
    }
}
