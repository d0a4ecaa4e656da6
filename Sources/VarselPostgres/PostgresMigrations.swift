import Logging
import PostgresNIO
import VarselStore

/// The PostgreSQL schema's history. Migrations are never edited once shipped: change the schema with a new one.
///
/// Dates are seconds since 1970 (`DOUBLE PRECISION`), as in the SQLite store, so both stores read the same values.
enum PostgresMigrations {
    static let all: [(name: String, sql: [String])] = [
        (
            "v1: users, sessions, notifications, assignments, certifications, events, web push",
            [
                """
                CREATE TABLE users (
                    id BIGSERIAL PRIMARY KEY,
                    username TEXT NOT NULL,
                    display_name TEXT NOT NULL,
                    role TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    language TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    paused_until DOUBLE PRECISION
                )
                """,
                "CREATE UNIQUE INDEX users_by_username ON users (lower(username))",
                """
                CREATE TABLE session (
                    token_hash TEXT PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    csrf_token TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE notification (
                    id BIGSERIAL PRIMARY KEY,
                    recipient_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    sender_id BIGINT,
                    kind TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    urgency TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    read_at DOUBLE PRECISION,
                    deep_link TEXT NOT NULL,
                    personal_details TEXT NOT NULL
                )
                """,
                "CREATE INDEX notification_by_recipient ON notification (recipient_id, id)",
                """
                CREATE TABLE idempotency_key (
                    sender_id BIGINT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    notification_ids TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (sender_id, key)
                )
                """,
                "CREATE TABLE preferences (user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE, json TEXT NOT NULL)",
                "CREATE TABLE contact (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL, address TEXT NOT NULL, notes TEXT NOT NULL)",
                """
                CREATE TABLE assignment (
                    id BIGSERIAL PRIMARY KEY,
                    mentor_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    contact_id BIGINT NOT NULL REFERENCES contact(id),
                    coordinator_id BIGINT,
                    status TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    responded_at DOUBLE PRECISION,
                    notification_id BIGINT
                )
                """,
                "CREATE INDEX assignment_by_mentor ON assignment (mentor_id, id)",
                """
                CREATE TABLE certification (
                    id BIGSERIAL PRIMARY KEY,
                    mentor_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX certification_by_expiry ON certification (expires_at)",
                "CREATE TABLE certification_warning (certification_id BIGINT NOT NULL, threshold INTEGER NOT NULL, PRIMARY KEY (certification_id, threshold))",
                """
                CREATE TABLE event (
                    id BIGSERIAL PRIMARY KEY,
                    user_id BIGINT NOT NULL,
                    type TEXT NOT NULL,
                    notification_id BIGINT,
                    notification TEXT,
                    unread_count INTEGER,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX event_by_user ON event (user_id, id)",
                "CREATE INDEX event_by_time ON event (created_at)",
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
                "CREATE TABLE vapid_key (id INTEGER PRIMARY KEY CHECK (id = 1), private_key BYTEA NOT NULL)",
                """
                CREATE TABLE push_subscription (
                    id BIGSERIAL PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    session_token_hash TEXT NOT NULL REFERENCES session(token_hash) ON DELETE CASCADE,
                    endpoint TEXT NOT NULL UNIQUE,
                    p256dh BYTEA NOT NULL,
                    auth BYTEA NOT NULL,
                    action_secret BYTEA NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX push_subscription_by_user ON push_subscription (user_id, id)",
                """
                CREATE TABLE push_delivery (
                    id BIGSERIAL PRIMARY KEY,
                    subscription_id BIGINT NOT NULL REFERENCES push_subscription(id) ON DELETE CASCADE,
                    notification_id BIGINT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    enqueued_at DOUBLE PRECISION NOT NULL,
                    next_attempt_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX push_delivery_by_due ON push_delivery (next_attempt_at)",
            ]
        ),
        (
            "v2: assignment escalations",
            [
                """
                CREATE TABLE assignment_escalation (
                    assignment_id BIGINT NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                    step TEXT NOT NULL,
                    at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (assignment_id, step)
                )
                """,
                "CREATE INDEX assignment_pending_by_age ON assignment (status, created_at)",
            ]
        ),
        (
            "v3: booked pauses, reassignment, visits done, live delivery, scenarios",
            [
                "ALTER TABLE users ADD COLUMN paused_from DOUBLE PRECISION",
                """
                ALTER TABLE assignment ADD COLUMN previous_id BIGINT REFERENCES assignment(id),
                    ADD COLUMN reassigned_at DOUBLE PRECISION, ADD COLUMN done_at DOUBLE PRECISION,
                    ADD COLUMN visit_note TEXT, ADD COLUMN delivered_at DOUBLE PRECISION
                """,
                "CREATE INDEX assignment_by_notification ON assignment (notification_id)",
                """
                CREATE TABLE scenario (
                    id BIGSERIAL PRIMARY KEY,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    coordinator_id BIGINT,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE scenario_recipient (
                    scenario_id BIGINT NOT NULL REFERENCES scenario(id) ON DELETE CASCADE,
                    mentor_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    done_at DOUBLE PRECISION,
                    reflection TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (scenario_id, mentor_id)
                )
                """,
                "CREATE INDEX scenario_recipient_by_mentor ON scenario_recipient (mentor_id, scenario_id)",
                "CREATE TABLE sign_in_failure (key TEXT PRIMARY KEY, failures INTEGER NOT NULL, last DOUBLE PRECISION NOT NULL)",
                // Every statement that appends events wakes the other instances at commit: no round trip of its own.
                """
                CREATE FUNCTION varsel_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_notify('varsel_events', ''); RETURN NULL; END $$
                """,
                "CREATE TRIGGER event_notify AFTER INSERT ON event FOR EACH STATEMENT EXECUTE FUNCTION varsel_notify_events()",
            ]
        ),
        // Every create counts its recipient's unread notifications; without this the count visits every notification
        // the recipient ever had, read or not.
        (
            "v4: unread notifications by recipient",
            [
                "CREATE INDEX notification_unread_by_recipient ON notification (recipient_id) WHERE read_at IS NULL"
            ]
        ),
        (
            "v5: deactivated accounts, one-time password links, account change log",
            [
                "ALTER TABLE users ADD COLUMN deactivated_at DOUBLE PRECISION",
                """
                CREATE TABLE password_link (
                    token_hash TEXT PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX password_link_by_user ON password_link (user_id)",
                """
                CREATE TABLE account_log (
                    id BIGSERIAL PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    actor_id BIGINT,
                    action TEXT NOT NULL,
                    subject TEXT NOT NULL DEFAULT '',
                    date DOUBLE PRECISION,
                    at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX account_log_by_user ON account_log (user_id, id)",
            ]
        ),
        (
            "v6: who read a contact's details",
            [
                """
                CREATE TABLE contact_read (
                    id BIGSERIAL PRIMARY KEY,
                    contact_id BIGINT NOT NULL,
                    user_id BIGINT NOT NULL,
                    channel TEXT NOT NULL,
                    at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX contact_read_by_contact ON contact_read (contact_id, id)",
                "CREATE INDEX contact_read_by_time ON contact_read (at)",
            ]
        ),
        (
            "v7: erased contacts",
            [
                "ALTER TABLE contact ADD COLUMN erased_at DOUBLE PRECISION",
                "CREATE INDEX assignment_by_contact ON assignment (contact_id)",
            ]
        ),
        (
            "v8: the data key check",
            [
                "CREATE TABLE data_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), sealed TEXT NOT NULL)"
            ]
        ),
        (
            "v9: passkeys",
            [
                """
                CREATE TABLE passkey (
                    id BIGSERIAL PRIMARY KEY,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL UNIQUE,
                    public_key BYTEA NOT NULL,
                    sign_count BIGINT NOT NULL,
                    name TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    last_used_at DOUBLE PRECISION
                )
                """,
                "CREATE INDEX passkey_by_user ON passkey (user_id, id)",
                """
                CREATE TABLE passkey_challenge (
                    challenge_hash TEXT PRIMARY KEY,
                    purpose TEXT NOT NULL,
                    user_id BIGINT,
                    binding_hash TEXT NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX passkey_challenge_by_expiry ON passkey_challenge (expires_at)",
            ]
        ),
        // A notification to many recipients is written in several transactions (see ``FanOut``): what is still to be
        // written is kept here, so a crash in between loses nothing and writes nothing twice.
        (
            "v10: fan-outs",
            [
                "CREATE TABLE fanout (id BIGSERIAL PRIMARY KEY, created_at DOUBLE PRECISION NOT NULL, notification_ids TEXT)",
                """
                CREATE TABLE fanout_variant (
                    fanout_id BIGINT NOT NULL REFERENCES fanout(id) ON DELETE CASCADE,
                    variant INTEGER NOT NULL,
                    sender_id BIGINT,
                    kind TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    urgency TEXT NOT NULL,
                    deep_link TEXT NOT NULL,
                    personal_details TEXT NOT NULL,
                    PRIMARY KEY (fanout_id, variant)
                )
                """,
                """
                CREATE TABLE fanout_recipient (
                    fanout_id BIGINT NOT NULL REFERENCES fanout(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    recipient_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    variant INTEGER NOT NULL,
                    notification_id BIGINT,
                    PRIMARY KEY (fanout_id, position)
                )
                """,
                "CREATE INDEX fanout_pending ON fanout_recipient (fanout_id, position) WHERE notification_id IS NULL",
                "ALTER TABLE idempotency_key ADD COLUMN fanout_id BIGINT",
                "CREATE INDEX idempotency_key_by_fanout ON idempotency_key (fanout_id) WHERE fanout_id IS NOT NULL",
            ]
        ),
        // What is known of each device's delivery: accepted pushes, the ones its service worker reported shown, and
        // when its push service stopped taking them; a queued push is a notification or its withdrawal.
        (
            "v11: push receipts, device health and withdrawals",
            [
                "ALTER TABLE push_subscription ADD COLUMN device_name TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE push_subscription ADD COLUMN last_accepted_at DOUBLE PRECISION",
                "ALTER TABLE push_subscription ADD COLUMN last_shown_at DOUBLE PRECISION",
                "ALTER TABLE push_subscription ADD COLUMN first_unshown_at DOUBLE PRECISION",
                "ALTER TABLE push_subscription ADD COLUMN unshown_count INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE push_subscription ADD COLUMN revoked_at DOUBLE PRECISION",
                "ALTER TABLE push_delivery ADD COLUMN kind TEXT NOT NULL DEFAULT 'show'",
                """
                CREATE TABLE push_sent (
                    subscription_id BIGINT NOT NULL REFERENCES push_subscription(id) ON DELETE CASCADE,
                    notification_id BIGINT NOT NULL,
                    accepted_at DOUBLE PRECISION NOT NULL,
                    shown_at DOUBLE PRECISION,
                    PRIMARY KEY (subscription_id, notification_id)
                )
                """,
            ]
        ),
        // Systems that act through an integration token, each with an account of its own.
        (
            "v13: integration tokens",
            [
                "ALTER TABLE users ADD COLUMN is_integration BOOLEAN NOT NULL DEFAULT false",
                """
                CREATE TABLE integration (
                    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_by BIGINT,
                    last_used_at DOUBLE PRECISION
                )
                """,
            ]
        ),
        (
            "v14: text messages and email",
            [
                """
                CREATE TABLE contact_channel (
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    channel TEXT NOT NULL,
                    address TEXT NOT NULL,
                    verified_at DOUBLE PRECISION,
                    code_hash TEXT,
                    code_sent_at DOUBLE PRECISION,
                    code_expires_at DOUBLE PRECISION,
                    wrong_codes INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (user_id, channel)
                )
                """,
                """
                CREATE TABLE message_delivery (
                    id BIGSERIAL PRIMARY KEY,
                    notification_id BIGINT NOT NULL,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    channel TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    enqueued_at DOUBLE PRECISION NOT NULL,
                    next_attempt_at DOUBLE PRECISION NOT NULL,
                    ended_at DOUBLE PRECISION,
                    outcome TEXT,
                    UNIQUE (notification_id, channel)
                )
                """,
                "CREATE INDEX message_delivery_by_due ON message_delivery(next_attempt_at) WHERE ended_at IS NULL",
            ]
        ),
        (
            "v15: webhooks",
            [
                """
                CREATE TABLE webhook_endpoint (
                    id BIGSERIAL PRIMARY KEY,
                    integration_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    url TEXT NOT NULL,
                    events TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_by BIGINT,
                    created_at DOUBLE PRECISION NOT NULL,
                    failing_since DOUBLE PRECISION,
                    disabled_at DOUBLE PRECISION
                )
                """,
                """
                CREATE TABLE webhook_delivery (
                    id BIGSERIAL PRIMARY KEY,
                    endpoint_id BIGINT NOT NULL REFERENCES webhook_endpoint(id) ON DELETE CASCADE,
                    message_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    contact_id BIGINT,
                    body TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at DOUBLE PRECISION NOT NULL,
                    ended_at DOUBLE PRECISION,
                    outcome TEXT,
                    last_status INTEGER,
                    last_error TEXT
                )
                """,
                "CREATE INDEX webhook_delivery_by_due ON webhook_delivery(next_attempt_at) WHERE ended_at IS NULL",
                "CREATE INDEX webhook_delivery_by_endpoint ON webhook_delivery(endpoint_id, id)",
                "CREATE UNIQUE INDEX webhook_delivery_by_message ON webhook_delivery(endpoint_id, message_id)",
            ]
        ),
        (
            "v16: scheduled sends",
            [
                """
                CREATE TABLE scheduled_send (
                    id BIGSERIAL PRIMARY KEY,
                    sender_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    recipients TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    urgency TEXT NOT NULL,
                    send_at DOUBLE PRECISION NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    state TEXT NOT NULL,
                    ended_at DOUBLE PRECISION,
                    request_key TEXT,
                    request_fingerprint TEXT
                )
                """,
                "CREATE INDEX scheduled_send_by_due ON scheduled_send(send_at) WHERE state IN ('waiting', 'sending')",
                "CREATE UNIQUE INDEX scheduled_send_by_request_key ON scheduled_send(sender_id, request_key) WHERE request_key IS NOT NULL",
            ]
        ),
        (
            "v17: summaries",
            [
                """
                CREATE TABLE summary_schedule (
                    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    due_at DOUBLE PRECISION NOT NULL,
                    since DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX summary_schedule_by_due ON summary_schedule(due_at)",
            ]
        ),
        (
            "v18: scheduled scenarios",
            [
                "ALTER TABLE scheduled_send ADD COLUMN publishes_scenario BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE scenario ADD COLUMN scheduled_send_id BIGINT",
                "CREATE UNIQUE INDEX scenario_by_scheduled_send ON scenario(scheduled_send_id) WHERE scheduled_send_id IS NOT NULL",
            ]
        ),
        (
            "v19: a key per person visited",
            ["ALTER TABLE contact ADD COLUMN key_id TEXT"]
        ),
    ]

    /// Whether the database has Varsel's tables (any migration applied).
    static func hasSchema(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT to_regclass('schema_migration') IS NOT NULL", logger: logger).collect()
        return try rows.first?.decode(Bool.self) ?? false
    }

    /// How the tables stand against the migrations this version knows; a database without Varsel's tables
    /// (`hasSchema`, as ``hasSchema(_:logger:)`` found) has every one still to apply.
    static func state(_ connection: PostgresConnection, hasSchema: Bool, logger: Logger) async throws -> SchemaState {
        let known = all.map(\.name)
        guard hasSchema else { return SchemaState(applied: [], known: known) }
        var applied: Set<String> = []
        for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
            applied.insert(name)
        }
        return SchemaState(applied: applied, known: known)
    }

    /// Applies the migrations not yet applied, all in one transaction under a lock, so of several instances starting
    /// together the first makes every change and the others find them made; returns whether it applied the first one
    /// (the database had no Varsel tables) and how many it applied. A database a later version changed is refused
    /// (``SchemaFromNewerVersion``), under the lock.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> (madeSchema: Bool, applied: Int) {
        let known = Set(all.map(\.name))
        // What the transaction did; an error thrown inside it would reach the caller wrapped.
        let outcome = try await connection.withTransaction(logger: logger) { connection -> (unknown: Int, applied: [String]) in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresRepository.migrationLock))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS schema_migration (name TEXT PRIMARY KEY)", logger: logger)
            var names: Set<String> = []
            for try await name in try await connection.query("SELECT name FROM schema_migration", logger: logger).decode(String.self) {
                names.insert(name)
            }
            let unknown = names.subtracting(known).count
            guard unknown == 0 else { return (unknown, []) }
            var applied: [String] = []
            for migration in all where !names.contains(migration.name) {
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migration (name) VALUES (\(migration.name))", logger: logger)
                applied.append(migration.name)
            }
            return (0, applied)
        }
        if outcome.unknown > 0 { throw SchemaFromNewerVersion(unknown: outcome.unknown) }
        return (outcome.applied.first == all.first?.name, outcome.applied.count)
    }
}
