"""The catalogue's games: one module per game, each describing rules only."""
