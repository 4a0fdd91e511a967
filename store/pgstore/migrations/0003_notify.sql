-- Appends are announced with NOTIFY, so that a process can follow a
-- debate played by another (Feed): on each record inserted, a notification
-- on the channel of the records' schema, 'duelogic_records_' followed by
-- the md5 of the schema's name (a channel name has at most 63 bytes),
-- whose payload is the record's seq, a colon, and the debate's ID. NOTIFY
-- is delivered when the inserting transaction commits, and not at all
-- when it rolls back.
CREATE FUNCTION records_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('duelogic_records_' || md5(TG_TABLE_SCHEMA), NEW.seq || ':' || NEW.debate_id);
	RETURN NULL;
END
$$;

CREATE TRIGGER records_notify AFTER INSERT ON records
	FOR EACH ROW EXECUTE FUNCTION records_notify();
