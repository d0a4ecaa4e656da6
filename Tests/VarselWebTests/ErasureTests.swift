import Foundation
import HTTPTypes
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

/// Erasing a visited person's details on request: who may, and what the screens say afterwards.
@Suite("Erasing a contact's details")
struct ErasureTests {
    @Test("the coordinator erases from the contact page after the dialog; the mentor's list, the dashboard and the page say the details were removed")
    func erasureOnRequest() async throws {
        let world = try await TestWorld()
        let (assignment, contact, item) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "900 00 000", address: "Torggata 3", notes: "Hører dårlig"), urgency: .normal)
        try await world.test { client in
            let (cookie, csrf) = try await client.cookieAndCSRF("coord")
            let page = try await client.execute(
                uri: "/contacts/\(contact.id)?assignment=\(assignment.id)&confirm=erase", method: .get,
                headers: [.cookie: cookie])
            // The dialog, open without script: named by its title, asking the question.
            #expect(page.text.contains(#"<dialog id="erase-dialog" tabindex="-1" aria-labelledby="erase-dialog-title" open data-inline>"#))
            #expect(page.text.contains("Erase the details of Per Olsen?"))
            #expect(page.text.contains("This cannot be undone."))

            // A mentor may not erase, not even her own assignment's contact.
            let kari = try await client.token("kari")
            #expect(try await client.call(.post, "/api/v1/contacts/\(contact.id)/erase", token: kari).status == .notFound)

            let erased = try await client.execute(
                uri: "/contacts/\(contact.id)/erase", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "_csrf=\(csrf)&assignment=\(assignment.id)"))
            #expect(erased.status == .seeOther)
            let location = try #require(erased.headers[.location])
            #expect(location == "/contacts/\(contact.id)?assignment=\(assignment.id)&done=erased")
            let after = try await client.execute(uri: location, method: .get, headers: [.cookie: cookie])
            #expect(after.text.contains("Details erased"))
            #expect(after.text.contains(">Details removed</h1>"))
            #expect(after.text.contains("The details of this person were removed on "))
            #expect(!after.text.contains("Per Olsen") && !after.text.contains("Torggata") && !after.text.contains("Hører"))
            #expect(!after.text.contains("erase-dialog"), "nothing is left to erase")

            let dashboard = try await client.execute(uri: "/coordinator/assignments", method: .get, headers: [.cookie: cookie])
            #expect(dashboard.text.contains("details removed, Kari, waiting for an answer"))
            let list = try await client.call(.get, "/notifications", token: kari)
            #expect(list.text.contains("Assignment: Details removed"))
            #expect(!list.text.contains("Per Olsen"))
            let notification = try await client.call(.get, "/api/v1/notifications/\(item.id)", token: kari)
            #expect(notification.text.contains(#""title":"Details removed""#))
            let api = try await client.call(.get, "/api/v1/contacts/\(contact.id)", token: kari)
            #expect(api.text.contains(#""name":"""#) && api.text.contains(#""erasedAt""#))
        }
        // Reading an erased contact records no read: there is nothing left to read.
        let reads = try await world.repository.contactReads(contactID: contact.id)
        #expect(reads.map(\.channel) == [.contactPage])
    }
}

/// Everything stored about a person, as a download: a user's own data, and (for admins) a visited person's.
@Suite("Downloads of stored data")
struct DataExportTests {
    @Test("a user downloads their own data: notifications, preferences, sessions without tokens, the change log; never a hash or token")
    func personalData() async throws {
        let world = try await TestWorld()
        let (_, contact, _) = try await world.services.sender.assign(
            mentor: world.kari, coordinatorID: world.coordinator.id,
            contact: NewContact(name: "Per Olsen", phone: "900 00 000", address: "Torggata 3", notes: "Hører dårlig"), urgency: .normal)
        try await world.test { client in
            let kari = try await client.token("kari")
            let download = try await client.call(.get, "/api/v1/me/export", token: kari)
            #expect(download.status == .ok)
            #expect(download.headers[.contentDisposition] == #"attachment; filename="varsel-my-data.json""#)
            #expect(download.headers[.cacheControl] == "no-store")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: download.body)) as? [String: Any])
            #expect((json["account"] as? [String: Any])?["username"] as? String == "kari")
            #expect((json["notifications"] as? [Any])?.count == 1)
            #expect((json["sessions"] as? [[String: Any]])?.count == 1)
            #expect((json["accountChanges"] as? [[String: Any]])?.first?["action"] as? String == "created")
            #expect((json["assignments"] as? [Any])?.count == 1)
            let text = download.text
            #expect(!text.contains(kari) && !text.contains("$2") && !text.contains("csrf") && !text.lowercased().contains("tokenhash"))
            // Her notifications are as she sees them in the list; the visited person's record (the notes) is not hers.
            #expect(!text.contains("Hører dårlig"))

            // An admin downloads what is stored about the visited person; the download is a read of the details.
            let admin = try await client.token("admin")
            let about = try await client.call(.get, "/api/v1/contacts/\(contact.id)/export", token: admin)
            #expect(about.status == .ok)
            #expect(about.text.contains("Hører dårlig") && about.text.contains(#""assignments""#) && about.text.contains(#""reads""#))
            #expect(try await client.call(.get, "/api/v1/contacts/\(contact.id)/export", token: try await client.token("coord")).status == .notFound)
        }
        #expect(try await world.repository.contactReads(contactID: contact.id).map(\.channel) == [.export])
    }
}
