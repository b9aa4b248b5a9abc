"""The Markov-game engine: full observation, chance and choice; solved on compiled arrays."""
