// Command pgcli is the debate command of examples/cli with the SQL stores
// linked in: besides a directory of JSONL files, --store takes a
// postgres:// (or postgresql://) URL, and the debates are recorded in that
// database by store/pgstore, which creates its tables on first use; or
// sqlite:FILE, and the debates are recorded in that SQLite file by
// store/sqlitestore, which creates it on first use.
//
//	pgcli --store postgres://app@db/duelogic "Should cities ban cars?"
//	pgcli --store postgres://app@db/duelogic --list
//	pgcli --store postgres://app@db/duelogic --resume dl-0123456789abcdef
//	pgcli --store sqlite:debates.db "Should cities ban cars?"
//	pgcli --store sqlite:debates.db --fork dl-0123456789abcdef@12 --set flow.maxExchanges=4
//
// Starting, resuming, --list and --fork work alike on both; the job
// commands (--enqueue, --cancel, --requeue, below) queue debates in
// PostgreSQL and refuse a sqlite: store.
//
// It is a module of its own, so that the core module and examples/cli do
// not require a database driver. Build it with
//
//	go -C examples/pgcli build -o pgcli .
//
// or run it in place with go -C examples/pgcli run . [flags].
//
// Everything else is the debate command's: the formats and their flags,
// the offline stub model unless --base-url (or DUELOGIC_BASE_URL) names an
// OpenAI-compatible endpoint, the key in DUELOGIC_API_KEY, --out, and the
// exit statuses (0 finished or paused, 1 failed or interrupted, 2 bad
// usage); see examples/cli.
//
// It links a YAML library too (gopkg.in/yaml.v3), which the core module
// does not: the moderated format's --settings file may be YAML, the seed's
// settings.amelia.yaml, as well as JSON:
//
//	debate:
//	  max_rounds: 5
//	  default_perspectives: 2          # or auto: the moderator's choice
//	  token_budget_per_round: 2000     # or unlimited
//	  round_timeout_seconds: 120
//	  checkpoint_timeout_seconds: 1800
//	  total_timeout_seconds: 1800
//	  custom_perspectives:
//	    - name: Compliance First
//	      priorities: [audit trails, data residency, SOC2 requirements]
//	      trade_offs: Will accept development slowdown for compliance
//
//	pgcli --format moderated --settings settings.amelia.yaml "How should we structure the plugin system?"
//
// A debate stopped by Ctrl-C, a model error or a lost connection stays in
// the database as far as it was recorded: --resume finishes it here, or
// --requeue queues it for examples/worker. With a postgres:// store,
// --enqueue queues a debate for the workers instead of playing it, --cancel
// stops one wherever it plays, and --list shows each debate's job status
// (see jobs.go). A password in the URL is never printed: the hints to resume and
// the --list header show the URL with the password masked. Prefer a
// password file (PGPASSFILE) or PGPASSWORD to a password in the URL, which
// other users of the machine can read on the command line.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"

	"github.com/duelogic/duelogic/examples/internal/cliapp"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/sqlitestore"
)

// sqlitePrefix starts a --store value naming a SQLite file.
const sqlitePrefix = "sqlite:"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if isJobs(os.Args[1:]) { // jobs.go: --enqueue, --cancel, --requeue, --list of a queue
		code := runJobs(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	code := cliapp.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, open, cliapp.WithYAML(yamlToJSON))
	stop()
	os.Exit(code)
}

// yamlToJSON is the JSON document a YAML settings file holds, as read by
// gopkg.in/yaml.v3: its first document, which must be a mapping with
// string keys.
func yamlToJSON(data []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("the document is empty: want a mapping of settings")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("a value JSON cannot hold: %w", err)
	}
	return out, nil
}

// open is the command's store opener: sqlitestore.Open for sqlite:FILE,
// pgstore.Open for a postgres:// URL.
func open(ctx context.Context, url string) (store.Store, error) {
	if file, ok := strings.CutPrefix(url, sqlitePrefix); ok {
		if file == "" {
			return nil, errors.New("sqlite: names no file: give --store sqlite:FILE")
		}
		st, err := sqlitestore.Open(ctx, file)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return st, nil
}
