"""The PostgreSQL schema and its migrations, one list of statements per version.

A migration never edits an earlier entry: version N+1 appends statements that
take a version-N database forward. ``combatlog_schema`` records the versions
applied; the store migrates on open, one process at a time per schema (an
advisory lock), so writers that start together do not race.

Text columns that hold ids, names and timestamps use the "C" collation so that
ordering (``list_streams`` by created_at, id) is bytewise, as in SQLite, and
does not depend on the server's locale.
"""

from __future__ import annotations

VERSION_TABLE = "combatlog_schema"

MIGRATIONS: dict[int, list[str]] = {
    1: [
        f"""CREATE TABLE {VERSION_TABLE} (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE streams (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL UNIQUE,
            ruleset text NOT NULL,
            created_at text COLLATE "C" NOT NULL,
            parent text COLLATE "C",
            fork_seq bigint NOT NULL DEFAULT 0
        )""",
        'CREATE INDEX streams_created ON streams (created_at, id)',
        # The single row whose lock orders all appends: see store/postgres.py.
        """CREATE TABLE log_head (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            position bigint NOT NULL
        )""",
        "INSERT INTO log_head (singleton, position) VALUES (true, 0)",
        """CREATE TABLE events (
            position bigint PRIMARY KEY,
            stream text COLLATE "C" NOT NULL REFERENCES streams (id),
            seq bigint NOT NULL,
            type text NOT NULL,
            hash text NOT NULL,
            body bytea NOT NULL,
            UNIQUE (stream, seq)
        )""",
        """CREATE TABLE commands (
            stream text COLLATE "C" NOT NULL REFERENCES streams (id),
            command_id text COLLATE "C" NOT NULL,
            first_seq bigint NOT NULL,
            last_seq bigint NOT NULL,
            PRIMARY KEY (stream, command_id)
        )""",
        """CREATE TABLE snapshots (
            stream text COLLATE "C" NOT NULL,
            engine text COLLATE "C" NOT NULL,
            seq bigint NOT NULL,
            blob bytea NOT NULL,
            PRIMARY KEY (stream, engine, seq)
        )""",
        """CREATE TABLE secrets (
            name text COLLATE "C" PRIMARY KEY,
            value bytea NOT NULL
        )""",
        # Numbers rows from the log head and inserts them. The UPDATE holds the log_head row lock
        # until the caller commits, so positions are taken, and become visible, in commit order.
        """CREATE FUNCTION combatlog_insert_events(
            p_stream text[], p_seq bigint[], p_type text[], p_hash text[], p_body bytea[]
        ) RETURNS void LANGUAGE sql AS $$
            WITH h AS (
                UPDATE log_head SET position = position + cardinality(p_seq)
                RETURNING position - cardinality(p_seq) AS base
            )
            INSERT INTO events (position, stream, seq, type, hash, body)
            SELECT h.base + r.ord, r.stream, r.seq, r.type, r.hash, r.body
            FROM h, unnest(p_stream, p_seq, p_type, p_hash, p_body) WITH ORDINALITY AS r(stream, seq, type, hash, body, ord)
        $$""",
        # One append, in one round trip: lock the stream, then (in later statements, so with
        # fresh snapshots that see what the previous lock holder committed) recognise a retried
        # command id, check the expected version, record the command, and number the events
        # last, so the log head is held only from there to the commit.
        """CREATE FUNCTION combatlog_append(
            p_stream text, p_expected bigint, p_command text,
            p_seq bigint[], p_type text[], p_hash text[], p_body bytea[],
            OUT r_status text, OUT r_actual bigint, OUT r_first bigint, OUT r_last bigint
        ) LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM 1 FROM streams WHERE id = p_stream FOR NO KEY UPDATE;
            IF NOT FOUND THEN
                r_status := 'missing';
                RETURN;
            END IF;
            SELECT c.first_seq, c.last_seq INTO r_first, r_last
                FROM commands c WHERE c.stream = p_stream AND c.command_id = p_command;
            IF FOUND THEN
                r_status := 'duplicate';
                RETURN;
            END IF;
            SELECT coalesce(max(e.seq), 0) INTO r_actual FROM events e WHERE e.stream = p_stream;
            IF r_actual <> p_expected THEN
                r_status := 'conflict';
                RETURN;
            END IF;
            r_first := p_seq[1];
            r_last := p_seq[cardinality(p_seq)];
            INSERT INTO commands (stream, command_id, first_seq, last_seq) VALUES (p_stream, p_command, r_first, r_last);
            PERFORM combatlog_insert_events(array_fill(p_stream, ARRAY[cardinality(p_seq)]), p_seq, p_type, p_hash, p_body);
            r_status := 'ok';
        END $$""",
        # The log is append-only: the server itself refuses to change or delete an event, a stream
        # or a command record (snapshots and secrets are caches and keys, not the log).
        """CREATE FUNCTION combatlog_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'combatlog: % on % refused: the log is append-only', TG_OP, TG_TABLE_NAME;
        END $$""",
        *(
            statement
            for table in ("events", "streams", "commands")
            for statement in (
                f"""CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                    FOR EACH ROW EXECUTE FUNCTION combatlog_append_only()""",
                f"""CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
                    FOR EACH STATEMENT EXECUTE FUNCTION combatlog_append_only()""",
            )
        ),
    ],
    # 2: bundles that arrived before their predecessor. Local state, like snapshots: never exported, and
    # deleted once applied, so not append-only.
    2: [
        """CREATE TABLE held_bundles (
            digest text COLLATE "C" PRIMARY KEY,
            stream text COLLATE "C" NOT NULL,
            waits_on text COLLATE "C" NOT NULL,
            since bigint NOT NULL,
            head_seq bigint NOT NULL,
            received_at text COLLATE "C" NOT NULL,
            source text NOT NULL,
            body bytea NOT NULL
        )""",
        "CREATE INDEX held_bundles_waits_on ON held_bundles (waits_on)",
        "CREATE INDEX held_bundles_stream ON held_bundles (stream)",
    ],
    # 3: a deterministic merge (exchange/merge.py) replaces a stream's tail. The superseded events are kept
    # first, as evidence; the append-only trigger lets an event row go only inside a transaction that set
    # combatlog.superseding and only once its copy is in ``superseded`` (streams stay append-only).
    3: [
        """CREATE TABLE superseded (
            stream text COLLATE "C" NOT NULL REFERENCES streams (id),
            seq bigint NOT NULL,
            hash text COLLATE "C" NOT NULL,
            body bytea NOT NULL,
            by text COLLATE "C" NOT NULL,
            superseded_at text COLLATE "C" NOT NULL,
            PRIMARY KEY (stream, hash)
        )""",
        """CREATE OR REPLACE FUNCTION combatlog_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' AND coalesce(current_setting('combatlog.superseding', true), '') = 'on' THEN
                IF TG_TABLE_NAME = 'commands' THEN
                    RETURN OLD;
                END IF;
                IF TG_TABLE_NAME = 'events' THEN
                    IF EXISTS (SELECT 1 FROM superseded s WHERE s.stream = OLD.stream AND s.hash = OLD.hash) THEN
                        RETURN OLD;
                    END IF;
                END IF;
            END IF;
            RAISE EXCEPTION 'combatlog: % on % refused: the log is append-only', TG_OP, TG_TABLE_NAME;
        END $$""",
    ],
    # 4: push notification for the serve processes (docs/server.md, "Several server processes"). After each
    # statement that inserts events, one NOTIFY per stream on the channel below, payload "SCHEMA STREAM SEQ"
    # (the table's schema, so several logs in one database are told apart; the stream's highest seq in the
    # statement). NOTIFY is transactional: listeners hear it only when the append commits, never for one
    # rolled back, and notifications of one transaction arrive in commit order.
    4: [
        """CREATE FUNCTION combatlog_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            r record;
        BEGIN
            FOR r IN SELECT n.stream, max(n.seq) AS head FROM combatlog_new_events n GROUP BY n.stream LOOP
                PERFORM pg_notify('combatlog_events', TG_TABLE_SCHEMA || ' ' || r.stream || ' ' || r.head);
            END LOOP;
            RETURN NULL;
        END $$""",
        """CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS combatlog_new_events
            FOR EACH STATEMENT EXECUTE FUNCTION combatlog_notify_events()""",
    ],
}

NOTIFY_CHANNEL = "combatlog_events"

SCHEMA_VERSION = max(MIGRATIONS)
