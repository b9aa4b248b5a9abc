"""Compiled feedback of item matching (numba; imported only when feedbacks are computed)."""

from __future__ import annotations

from numba import njit


def _kernel(guesses, secrets, out):  # compiled below as item_matching
    """out[i, j] = sum over slots p of digit_p * 3**p (0 Incorrect, 1 Wrong slot, 2 Correct).

    Slot p is Correct when the items agree; otherwise Wrong slot when the guessed item
    occurs in the secret at some slot that is not Correct, else Incorrect.
    """
    L = guesses.shape[1]
    for i in range(guesses.shape[0]):
        for j in range(secrets.shape[0]):
            correct = 0
            open_items = 0  # bit a set: item a sits in a slot of the secret that is not Correct
            for p in range(L):
                a = secrets[j, p]
                if guesses[i, p] == a:
                    correct |= 1 << p
                else:
                    open_items |= 1 << a
            code = 0
            weight = 1
            for p in range(L):
                if (correct >> p) & 1:
                    code += 2 * weight
                elif (open_items >> guesses[i, p]) & 1:
                    code += weight
                weight *= 3
            out[i, j] = code


item_matching = njit(cache=True, nogil=True)(_kernel)
