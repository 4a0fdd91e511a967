package duelogic

// The engine registers the offline stub's answers to argument extraction.
import _ "github.com/duelogic/duelogic/engine"
