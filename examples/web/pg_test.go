package main

import (
	"bufio"
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
)

// pgDSN returns a DSN on a new schema of the test database, dropped after
// the test (pgtest).
func pgDSN(t *testing.T) string { return pgtest.SchemaDSN(t, "web_test") }

// TestPostgres: issue 15, "started debates posted by the web example or
// the CLI with --store postgres://... are picked up" by examples/worker.
// A podcast started from the API on PostgreSQL stops with the server;
// the store lists it unfinished; resumed as the worker resumes it, it
// finishes; the web server reads it back finished, and plays a debate of
// another format to its end on the same database.
func TestPostgres(t *testing.T) {
	dsn := pgDSN(t)
	ctx := context.Background()
	pg, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	g := newGate("")
	s := newServer(g, pg, nil)
	hs := httptest.NewServer(s.routes())
	id := create(t, hs.URL, "duelogic", `{"proposition": "Should cities ban cars?", "config": {"flow": {"maxExchanges": 3}}}`)
	<-g.reached
	s.shutdown(0) // the server goes away mid-debate
	hs.Close()

	unfinished, err := pg.Unfinished(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(unfinished, id) {
		t.Fatalf("unfinished debates %q lack %s", unfinished, id)
	}
	// What examples/worker does with each unfinished debate.
	if _, err := engine.ResumeStored(ctx, llm.NewStub(1), id, engine.WithStore(pg), engine.WithHuman(pause)); err != nil {
		t.Fatalf("resume as the worker does: %v", err)
	}
	if unfinished, _ := pg.Unfinished(ctx); slices.Contains(unfinished, id) {
		t.Error("the debate is still unfinished after the worker's resume")
	}

	s = newServer(llm.NewStub(1), pg, nil)
	hs = serve(t, s)
	if v := getView(t, hs.URL, id); v.Status != statusFinished || podcast(t, v).Metrics.Evaluated == 0 || v.Arguments == nil {
		t.Errorf("read back: status %s, map %v", v.Status, v.Arguments != nil)
	}
	other := create(t, hs.URL, "scored", `{"proposition": "A meal-planning app."}`)
	if types := eventTypes(t, hs.URL+"/api/debates/"+other+"/events"); types[len(types)-1] != "debate_ended" {
		t.Errorf("scored stream ends with %q", types[len(types)-1])
	}
	s.wg.Wait()
	var list []debateItem
	call(t, "GET", hs.URL+"/api/debates", "", &list)
	var got []string
	for _, d := range list {
		got = append(got, d.ID+" "+d.Status)
	}
	if want := []string{other + " finished", id + " finished"}; !slices.Equal(got, want) {
		t.Errorf("history %q; want %q", got, want)
	}
}

// TestRunWithPostgresStore: -store postgres://... serves from the database.
func TestRunWithPostgresStore(t *testing.T) {
	dsn := pgDSN(t)
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func() {}, []string{"-addr", "127.0.0.1:0", "-store", dsn}, pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "duelogic web: listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, pr)
	var list []debateItem
	if code := call(t, "GET", addr+"/api/debates", "", &list); code != 200 || len(list) != 0 {
		t.Errorf("GET /api/debates: %d, %v", code, list)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	// A database that cannot be reached is an error naming the flag.
	err = run(t.Context(), func() {}, []string{"-addr", "127.0.0.1:0", "-store", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"},
		io.Discard, io.Discard, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "-store") {
		t.Errorf("run with an unreachable database: %v", err)
	}
}

// TestPostgresModeratedPerson: on PostgreSQL, a moderated debate from the
// page pauses for its clarifying question, its checkpoint and the approval
// of its synthesis and of the revision;
// each pause is read back by a server started after it, and each answer
// resumes the debate there, to its end.
func TestPostgresModeratedPerson(t *testing.T) {
	pg, err := pgstore.Open(t.Context(), pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	s := newServer(llm.NewStub(1), pg, nil)
	hs := serve(t, s)
	id := create(t, hs.URL, "moderated", `{"proposition": "Redis or PostgreSQL?", "config": {"maxRounds": 3}}`)
	s.wg.Wait()
	for _, step := range []struct{ waiting, path, body string }{
		{engine.QuestionClarification, "clarification", `{"answer": "Sessions only; we run PostgreSQL."}`},
		{engine.QuestionCheckpoint, "checkpoint", `{"action": "end"}`},
		{engine.QuestionApproval, "approval", `{"approve": false, "feedback": "Not yet."}`},
		// The moderator revises a rejected synthesis once; rejected again,
		// it is recorded as rejected.
		{engine.QuestionApproval, "approval", `{"approve": false, "feedback": "Still not."}`},
	} {
		s, hs = restart(t, s, hs)
		pausedAt(t, getView(t, hs.URL, id), step.waiting)
		if code, got := post(t, hs.URL+"/api/debates/"+id+"/"+step.path, step.body); code != 202 {
			t.Fatalf("POST %s: %d %+v", step.path, code, got)
		}
		s.wg.Wait()
	}
	v := getView(t, hs.URL, id)
	out := outcome(t, v)
	if v.Status != statusFinished || out.Clarification == nil || out.Clarification.Answer != "Sessions only; we run PostgreSQL." ||
		out.Synthesis.Approval == nil || out.Synthesis.Approval.Status != moderated.Rejected {
		t.Errorf("status %s, clarification %+v, approval %+v", v.Status, out.Clarification, out.Synthesis.Approval)
	}
}
