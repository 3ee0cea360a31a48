package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// noneYet says, on stderr, that a listing found nothing, and how to get something: an empty
// stdout alone reads as a command that did not work. Stdout stays empty, so that scripts
// reading the listing (`bundle ls | wc -l`) are not misled.
func noneYet(c *cli.Context, what, hint string) {
	fmt.Fprintf(c.App.ErrWriter, "no %s yet in this store: %s\n", what, hint)
}
