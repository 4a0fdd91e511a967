package pgtest_test

import (
	"fmt"

	"github.com/duelogic/duelogic/store/pgstore/pgtest"
)

func ExampleWithSchema() {
	dsn, _ := pgtest.WithSchema("postgres://app@127.0.0.1:5432/duelogic?sslmode=disable", "t_1")
	fmt.Println(dsn)
	kv, _ := pgtest.WithSchema("host=127.0.0.1 dbname=duelogic", "t_1")
	fmt.Println(kv)
	// Output:
	// postgres://app@127.0.0.1:5432/duelogic?search_path=t_1&sslmode=disable
	// host=127.0.0.1 dbname=duelogic search_path=t_1
}
