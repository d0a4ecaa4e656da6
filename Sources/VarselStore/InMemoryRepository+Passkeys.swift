import Foundation

/// Passkeys and their challenges in memory.
extension InMemoryRepository {
    public func addPasskey(_ new: NewPasskey, at date: Date) throws -> Passkey {
        guard user(id: new.userID) != nil else { throw StoreError.notFound(.user) }
        guard !passkeysByID.values.contains(where: { $0.credentialID == new.credentialID }) else { throw StoreError.conflict("passkey is registered") }
        let passkey = Passkey(id: nextID("passkey"), userID: new.userID, credentialID: new.credentialID, publicKey: new.publicKey,
                              signCount: new.signCount, name: new.name, createdAt: date, lastUsedAt: nil)
        passkeysByID[passkey.id] = passkey
        appendLog([NewAccountLogEntry(actorID: new.userID, action: .passkeyAdded, subject: new.name)], userID: new.userID, at: date)
        return passkey
    }

    public func usePasswordLink(tokenHash: String, addingPasskey new: NewPasskey, at date: Date) throws -> (User, Passkey)? {
        guard let user = passwordLinkUser(tokenHash: tokenHash, at: date), user.id == new.userID else { return nil }
        let passkey = try addPasskey(new, at: date)
        passwordLinks[tokenHash] = nil
        _ = endSessions(of: user.id)
        return (user, passkey)
    }

    public func passkeys(userID: Int64) -> [Passkey] {
        passkeysByID.values.filter { $0.userID == userID }.sorted { $0.id < $1.id }
    }

    public func passkey(credentialID: String) -> Passkey? {
        passkeysByID.values.first { $0.credentialID == credentialID }
    }

    public func recordPasskeyUse(id: Int64, signCount: UInt32, at date: Date) {
        passkeysByID[id]?.signCount = signCount
        passkeysByID[id]?.lastUsedAt = date
    }

    public func renamePasskey(id: Int64, userID: Int64, name: String) -> Passkey? {
        guard passkeysByID[id]?.userID == userID else { return nil }
        passkeysByID[id]?.name = name
        return passkeysByID[id]
    }

    public func removePasskey(id: Int64, userID: Int64, at date: Date) -> Bool {
        guard let passkey = passkeysByID[id], passkey.userID == userID else { return false }
        passkeysByID[id] = nil
        appendLog([NewAccountLogEntry(actorID: userID, action: .passkeyRemoved, subject: passkey.name)], userID: userID, at: date)
        return true
    }

    public func storeChallenge(_ challenge: PasskeyChallenge) {
        challenges[challenge.challengeHash] = challenge
    }

    public func takeChallenge(challengeHash: String, at date: Date) -> PasskeyChallenge? {
        let taken = challenges.removeValue(forKey: challengeHash)
        challenges = challenges.filter { $0.value.expiresAt > date }
        guard let taken, taken.expiresAt > date else { return nil }
        return taken
    }
}
