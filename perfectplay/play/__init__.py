"""Interactive play and advice: a person plays, the tool shows the optimal choice."""
