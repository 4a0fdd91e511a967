package eval_test

import (
	"context"
	"fmt"

	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// Two arms judged on the same items: only the items exactly one of them
// got right tell them apart.
func ExampleMcNemarExact() {
	// Arm A alone was right on 1 item, arm B alone on 7 (Fagerland et al.
	// 2013's example).
	fmt.Printf("p = %.4f\n", eval.McNemarExact(1, 7))
	lo, hi := eval.Wilson(81, 263)
	fmt.Printf("81 of 263: 95%% interval %.4f to %.4f\n", lo, hi)
	// Output:
	// p = 0.0703
	// 81 of 263: 95% interval 0.2553 to 0.3662
}

// Evaluate on the offline stub: its numbers follow the stub's documented
// rule (StubAccuracy) and show the harness at work, nothing about debate.
func ExampleEvaluate() {
	items := eval.Arithmetic(20, 1)
	rep, err := eval.Evaluate(context.Background(), llm.NewStub(1), store.NewMemory(), items, eval.Config{
		Arms:   []string{eval.ArmSingle, eval.ArmDebate, eval.ArmVote},
		Agents: 3, Rounds: 2, Model: "stub", Stub: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range rep.Arms {
		fmt.Printf("%-6s %2d/%d right, %4.0f tokens per item\n", a.Name, a.Correct, a.N, a.TokensPerItem)
	}
	for _, p := range rep.Pairs {
		fmt.Printf("%s vs %s: significant: %v\n", p.A, p.B, p.Significant)
	}
	fmt.Println("right→wrong:", rep.Flips.RightToWrong, "wrong→right:", rep.Flips.WrongToRight)
	// Output:
	// single 10/20 right,  141 tokens per item
	// debate 17/20 right, 2213 tokens per item
	// vote   16/20 right,  462 tokens per item
	// single vs debate: significant: true
	// single vs vote: significant: false
	// debate vs vote: significant: false
	// right→wrong: 6 wrong→right: 13
}
