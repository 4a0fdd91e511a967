package sqlitestore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store/sqlitestore"
)

// A debate played into a SQLite file, listed and read back.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sqlitestore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "debates.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	f, err := formal.New(formal.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	d := engine.Debate{ID: "cars", Proposition: "Cities should ban private cars from their centres."}
	if _, err := engine.Run(ctx, llm.NewStub(1), f, d, engine.WithStore(st)); err != nil {
		log.Fatal(err)
	}
	ids, err := st.Debates(ctx)
	if err != nil {
		log.Fatal(err)
	}
	recs, err := st.Records(ctx, "cars")
	if err != nil {
		log.Fatal(err)
	}
	unfinished, err := st.Unfinished(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("debates:", ids)
	fmt.Println("first record:", recs[0].Type, "last:", recs[len(recs)-1].Type)
	fmt.Println("unfinished:", len(unfinished))
	// Output:
	// debates: [cars]
	// first record: debate last: debate_ended
	// unfinished: 0
}
