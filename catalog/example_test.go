package catalog_test

import (
	"fmt"

	"github.com/duelogic/duelogic/catalog"
)

// A host adds its own entry to the built-in catalog.
func ExampleCatalog_With() {
	c, err := catalog.DefaultCatalog().With(catalog.FrameworkInfo{
		ID: "stoic", Kind: catalog.KindPhilosophical, Name: "Stoic Chair",
		Description:  "Virtue is the only good; focus on what is in our control.",
		CoreQuestion: "What is within our control here?",
	})
	if err != nil {
		panic(err)
	}
	info, ok := c.Lookup("stoic")
	fmt.Println(ok, info.ShortName(), info.RoleName(), len(catalog.Frameworks()), len(catalog.Perspectives()))
	fmt.Println(c.Info(catalog.PerformanceAdvocate).RoleName())
	// Output:
	// true Stoic Stoic Chair 10 6
	// Performance Advocate perspective
}
