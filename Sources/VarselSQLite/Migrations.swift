import GRDB
import VarselStore

/// The schema's history. Migrations are never edited once shipped: change the schema with a new one.
enum Migrations {
    /// The first migration's name: a file that has recorded it is Varsel's.
    static let first = "v1: users, sessions, notifications, assignments, certifications, events"

    /// How the tables in `db` stand against the migrations this version knows.
    static func state(_ db: Database) throws -> SchemaState {
        let migrator = migrator
        return SchemaState(applied: try migrator.appliedIdentifiers(db), known: migrator.migrations)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(first) { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        display_name TEXT NOT NULL,
                        role TEXT NOT NULL,
                        password_hash TEXT NOT NULL,
                        language TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        paused_until DOUBLE
                    );
                    CREATE TABLE session (
                        token_hash TEXT PRIMARY KEY,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        csrf_token TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE TABLE notification (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        recipient_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        sender_id INTEGER,
                        kind TEXT NOT NULL,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        urgency TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        read_at DOUBLE,
                        deep_link TEXT NOT NULL,
                        personal_details TEXT NOT NULL
                    );
                    CREATE INDEX notification_by_recipient ON notification(recipient_id, id);
                    CREATE TABLE idempotency_key (
                        sender_id INTEGER NOT NULL,
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        notification_ids TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        PRIMARY KEY (sender_id, key)
                    );
                    CREATE TABLE preferences (
                        user_id INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                        json TEXT NOT NULL
                    );
                    CREATE TABLE contact (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL,
                        phone TEXT NOT NULL,
                        address TEXT NOT NULL,
                        notes TEXT NOT NULL
                    );
                    CREATE TABLE assignment (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        mentor_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        contact_id INTEGER NOT NULL REFERENCES contact(id),
                        coordinator_id INTEGER,
                        status TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        responded_at DOUBLE,
                        notification_id INTEGER
                    );
                    CREATE INDEX assignment_by_mentor ON assignment(mentor_id, id);
                    CREATE TABLE certification (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        mentor_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE INDEX certification_by_expiry ON certification(expires_at);
                    CREATE TABLE certification_warning (
                        certification_id INTEGER NOT NULL,
                        threshold INTEGER NOT NULL,
                        PRIMARY KEY (certification_id, threshold)
                    );
                    CREATE TABLE event (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL,
                        type TEXT NOT NULL,
                        notification_id INTEGER,
                        notification TEXT,
                        unread_count INTEGER,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX event_by_user ON event(user_id, id);
                    CREATE INDEX event_by_time ON event(created_at);
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY,
                        value INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2: web push key, subscriptions, outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE vapid_key (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        private_key BLOB NOT NULL
                    );
                    CREATE TABLE push_subscription (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        session_token_hash TEXT NOT NULL REFERENCES session(token_hash) ON DELETE CASCADE,
                        endpoint TEXT NOT NULL UNIQUE,
                        p256dh BLOB NOT NULL,
                        auth BLOB NOT NULL,
                        action_secret BLOB NOT NULL,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX push_subscription_by_user ON push_subscription(user_id, id);
                    CREATE INDEX push_subscription_by_session ON push_subscription(session_token_hash);
                    CREATE TABLE push_delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        subscription_id INTEGER NOT NULL REFERENCES push_subscription(id) ON DELETE CASCADE,
                        notification_id INTEGER NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        enqueued_at DOUBLE NOT NULL,
                        next_attempt_at DOUBLE NOT NULL
                    );
                    CREATE INDEX push_delivery_by_due ON push_delivery(next_attempt_at);
                    CREATE INDEX push_delivery_by_subscription ON push_delivery(subscription_id);
                    """)
        }
        migrator.registerMigration("v3: assignment escalations") { db in
            try db.execute(
                sql: """
                    CREATE TABLE assignment_escalation (
                        assignment_id INTEGER NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                        step TEXT NOT NULL,
                        at DOUBLE NOT NULL,
                        PRIMARY KEY (assignment_id, step)
                    );
                    CREATE INDEX assignment_pending_by_age ON assignment(status, created_at);
                    """)
        }
        migrator.registerMigration("v4: booked pauses, reassignment, visits done, live delivery, scenarios") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN paused_from DOUBLE;
                    ALTER TABLE assignment ADD COLUMN previous_id INTEGER REFERENCES assignment(id);
                    ALTER TABLE assignment ADD COLUMN reassigned_at DOUBLE;
                    ALTER TABLE assignment ADD COLUMN done_at DOUBLE;
                    ALTER TABLE assignment ADD COLUMN visit_note TEXT;
                    ALTER TABLE assignment ADD COLUMN delivered_at DOUBLE;
                    CREATE INDEX assignment_by_notification ON assignment(notification_id);
                    CREATE TABLE scenario (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        coordinator_id INTEGER,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE TABLE scenario_recipient (
                        scenario_id INTEGER NOT NULL REFERENCES scenario(id) ON DELETE CASCADE,
                        mentor_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        done_at DOUBLE,
                        reflection TEXT NOT NULL DEFAULT '',
                        PRIMARY KEY (scenario_id, mentor_id)
                    );
                    CREATE INDEX scenario_recipient_by_mentor ON scenario_recipient(mentor_id, scenario_id);
                    CREATE TABLE sign_in_failure (
                        key TEXT PRIMARY KEY,
                        failures INTEGER NOT NULL,
                        last DOUBLE NOT NULL
                    );
                    """)
        }
        // Every create counts its recipient's unread notifications (the unread-count event); without this index the
        // count visits every notification the recipient ever had, read or not: 1 ms for a thousand, on the writer.
        migrator.registerMigration("v5: unread notifications by recipient") { db in
            try db.execute(sql: "CREATE INDEX notification_unread_by_recipient ON notification(recipient_id) WHERE read_at IS NULL")
        }
        migrator.registerMigration("v6: deactivated accounts, one-time password links, account change log") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN deactivated_at DOUBLE;
                    CREATE TABLE password_link (
                        token_hash TEXT PRIMARY KEY,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE INDEX password_link_by_user ON password_link(user_id);
                    CREATE TABLE account_log (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        actor_id INTEGER,
                        action TEXT NOT NULL,
                        subject TEXT NOT NULL DEFAULT '',
                        date DOUBLE,
                        at DOUBLE NOT NULL
                    );
                    CREATE INDEX account_log_by_user ON account_log(user_id, id);
                    """)
        }
        migrator.registerMigration("v7: who read a contact's details") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contact_read (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        contact_id INTEGER NOT NULL,
                        user_id INTEGER NOT NULL,
                        channel TEXT NOT NULL,
                        at DOUBLE NOT NULL
                    );
                    CREATE INDEX contact_read_by_contact ON contact_read(contact_id, id);
                    CREATE INDEX contact_read_by_time ON contact_read(at);
                    """)
        }
        migrator.registerMigration("v8: erased contacts") { db in
            try db.execute(
                sql: """
                    ALTER TABLE contact ADD COLUMN erased_at DOUBLE;
                    CREATE INDEX assignment_by_contact ON assignment(contact_id);
                    """)
        }
        migrator.registerMigration("v9: the data key check") { db in
            try db.execute(sql: "CREATE TABLE data_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), sealed TEXT NOT NULL)")
        }
        migrator.registerMigration("v10: passkeys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE passkey (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        credential_id TEXT NOT NULL UNIQUE,
                        public_key BLOB NOT NULL,
                        sign_count INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        last_used_at DOUBLE
                    );
                    CREATE INDEX passkey_by_user ON passkey(user_id, id);
                    CREATE TABLE passkey_challenge (
                        challenge_hash TEXT PRIMARY KEY,
                        purpose TEXT NOT NULL,
                        user_id INTEGER,
                        binding_hash TEXT NOT NULL,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE INDEX passkey_challenge_by_expiry ON passkey_challenge(expires_at);
                    """)
        }
        // A notification to many recipients is written in several transactions (see ``FanOut``): what is still to
        // be written is kept here, so a crash in between loses nothing and writes nothing twice.
        migrator.registerMigration("v11: fan-outs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE fanout (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        created_at DOUBLE NOT NULL,
                        notification_ids TEXT
                    );
                    CREATE TABLE fanout_variant (
                        fanout_id INTEGER NOT NULL REFERENCES fanout(id) ON DELETE CASCADE,
                        variant INTEGER NOT NULL,
                        sender_id INTEGER,
                        kind TEXT NOT NULL,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        urgency TEXT NOT NULL,
                        deep_link TEXT NOT NULL,
                        personal_details TEXT NOT NULL,
                        PRIMARY KEY (fanout_id, variant)
                    );
                    CREATE TABLE fanout_recipient (
                        fanout_id INTEGER NOT NULL REFERENCES fanout(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        recipient_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        variant INTEGER NOT NULL,
                        notification_id INTEGER,
                        PRIMARY KEY (fanout_id, position)
                    );
                    CREATE INDEX fanout_pending ON fanout_recipient(fanout_id, position) WHERE notification_id IS NULL;
                    ALTER TABLE idempotency_key ADD COLUMN fanout_id INTEGER;
                    CREATE INDEX idempotency_key_by_fanout ON idempotency_key(fanout_id) WHERE fanout_id IS NOT NULL;
                    """)
        }
        // What is known of each device's delivery: accepted pushes, the ones its service worker reported shown, and
        // when its push service stopped taking them; a queued push is a notification or its withdrawal.
        migrator.registerMigration("v12: push receipts, device health and withdrawals") { db in
            try db.execute(
                sql: """
                    ALTER TABLE push_subscription ADD COLUMN device_name TEXT NOT NULL DEFAULT '';
                    ALTER TABLE push_subscription ADD COLUMN last_accepted_at DOUBLE;
                    ALTER TABLE push_subscription ADD COLUMN last_shown_at DOUBLE;
                    ALTER TABLE push_subscription ADD COLUMN first_unshown_at DOUBLE;
                    ALTER TABLE push_subscription ADD COLUMN unshown_count INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE push_subscription ADD COLUMN revoked_at DOUBLE;
                    ALTER TABLE push_delivery ADD COLUMN kind TEXT NOT NULL DEFAULT 'show';
                    CREATE TABLE push_sent (
                        subscription_id INTEGER NOT NULL REFERENCES push_subscription(id) ON DELETE CASCADE,
                        notification_id INTEGER NOT NULL,
                        accepted_at DOUBLE NOT NULL,
                        shown_at DOUBLE,
                        PRIMARY KEY (subscription_id, notification_id)
                    );
                    """)
        }
        // Systems that act through an integration token, each with an account of its own.
        migrator.registerMigration("v13: integration tokens") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN is_integration INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE integration (
                        user_id INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                        token_hash TEXT NOT NULL UNIQUE,
                        created_by INTEGER,
                        last_used_at DOUBLE
                    );
                    """)
        }
        // Mobile numbers and email addresses, and the outbox of the text messages and emails that follow up.
        migrator.registerMigration("v14: text messages and email") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contact_channel (
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        channel TEXT NOT NULL,
                        address TEXT NOT NULL,
                        verified_at DOUBLE,
                        code_hash TEXT,
                        code_sent_at DOUBLE,
                        code_expires_at DOUBLE,
                        wrong_codes INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (user_id, channel)
                    );
                    CREATE TABLE message_delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        notification_id INTEGER NOT NULL,
                        user_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        channel TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        enqueued_at DOUBLE NOT NULL,
                        next_attempt_at DOUBLE NOT NULL,
                        ended_at DOUBLE,
                        outcome TEXT,
                        UNIQUE (notification_id, channel)
                    );
                    CREATE INDEX message_delivery_by_due ON message_delivery(next_attempt_at) WHERE ended_at IS NULL;
                    """)
        }
        // Integrations' webhook endpoints and the outbox of their deliveries.
        migrator.registerMigration("v15: webhooks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhook_endpoint (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        integration_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        url TEXT NOT NULL,
                        events TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        created_by INTEGER,
                        created_at DOUBLE NOT NULL,
                        failing_since DOUBLE,
                        disabled_at DOUBLE
                    );
                    CREATE TABLE webhook_delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoint(id) ON DELETE CASCADE,
                        message_id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        contact_id INTEGER,
                        body TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at DOUBLE NOT NULL,
                        ended_at DOUBLE,
                        outcome TEXT,
                        last_status INTEGER,
                        last_error TEXT
                    );
                    CREATE INDEX webhook_delivery_by_due ON webhook_delivery(next_attempt_at) WHERE ended_at IS NULL;
                    CREATE INDEX webhook_delivery_by_endpoint ON webhook_delivery(endpoint_id, id);
                    CREATE UNIQUE INDEX webhook_delivery_by_message ON webhook_delivery(endpoint_id, message_id);
                    """)
        }
        // Notifications their senders scheduled for later.
        migrator.registerMigration("v16: scheduled sends") { db in
            try db.execute(
                sql: """
                    CREATE TABLE scheduled_send (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        sender_id INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                        recipients TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        urgency TEXT NOT NULL,
                        send_at DOUBLE NOT NULL,
                        created_at DOUBLE NOT NULL,
                        state TEXT NOT NULL,
                        ended_at DOUBLE,
                        request_key TEXT,
                        request_fingerprint TEXT
                    );
                    CREATE INDEX scheduled_send_by_due ON scheduled_send(send_at) WHERE state IN ('waiting', 'sending');
                    CREATE UNIQUE INDEX scheduled_send_by_request_key ON scheduled_send(sender_id, request_key) WHERE request_key IS NOT NULL;
                    """)
        }
        // When each person who gathers notifications into a summary gets their next one.
        migrator.registerMigration("v17: summaries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE summary_schedule (
                        user_id INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                        due_at DOUBLE NOT NULL,
                        since DOUBLE NOT NULL
                    );
                    CREATE INDEX summary_schedule_by_due ON summary_schedule(due_at);
                    """)
        }
        // A scheduled send may publish a training scenario, once.
        migrator.registerMigration("v18: scheduled scenarios") { db in
            try db.execute(
                sql: """
                    ALTER TABLE scheduled_send ADD COLUMN publishes_scenario INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE scenario ADD COLUMN scheduled_send_id INTEGER;
                    CREATE UNIQUE INDEX scenario_by_scheduled_send ON scenario(scheduled_send_id) WHERE scheduled_send_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v19: a key per person visited") { db in
            // The person's key in the key store (PersonKeyring); none for a contact whose details are under the data key.
            try db.execute(sql: "ALTER TABLE contact ADD COLUMN key_id TEXT")
        }
        return migrator
    }
}
