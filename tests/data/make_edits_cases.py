"""Regenerate `edits_cases.json`: tricky edits programs and what the reference grader made of them.

Usage: python tests/data/make_edits_cases.py ../shared/reference
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

CASES = {
    "negative_index": "```edits\nW1[-1, -1] = 3\nb3[-6] = 1\n```",
    "steps_and_open_slices": "```edits\nW1[::7, 3] = 0.5\nW1[10:, ::-1] += 0.25\nb1[None:5] = 2\n```",
    "float_index_truncates": "```edits\nW1[1.9, 0] = 1\n```",
    "string_index": "```edits\nb1['3'] = 1\n```",
    "bool_index": "```edits\nb1[True] = 1\n```",
    "string_value": "```edits\nb3[0] = '1.5'\n```",
    "bool_value": "```edits\nb3[:] = True\n```",
    "tuple_value": "```edits\nb3[0:3] = (1, 2, 3)\n```",
    "bytes_value": "```edits\nb3[0] = b'7'\n```",
    "leading_unit_dims": "```edits\nW3[0:2, 0:2] = [[[1, 2], [3, 4]]]\n```",
    "broadcast_row": "```edits\nW2[:, :] = [0.1] * 32\nW2[3, :] *= 2\nW2[:, 4] -= 1\n```",
    "parenthesised_tuple_index": "```edits\nW1[(5, 6)] = 1\n```",
    "augmented_list": "```edits\nb1[:4] += [1, 2, 3, 4]\nb1[:4] *= [2, 2, 2, 2]\n```",
    "semicolons_and_comments": "```edits\n# unit 0\nb1[0] = 1; b1[1] = 2  # two on a line\n\n```",
    "upper_case_tag": "```EDITS\nb3[1] = 4\n```",
    "mixed_case_tag": "```EdItS   \n\nb3[2] = 4\n```",
    "tag_with_crlf": "```edits\r\nb3[2] = 4\r\n```",
    "tag_then_text_no_newline": "```edits b3[0] = 1\n```\n```edits\nb3[1] = 2\n```",
    "unclosed_last_block": "```edits\nb3[0] = 1\n```\n```edits\nb3[1] = 2\n",
    "empty_block": "```edits\n```",
    "blocks_share_fence": "```edits\nb3[0] = 1\n```edits\nb3[1] = 2\n```",
    "other_fences_ignored": "```python\nb3[0] = 9\n```\n```edits\nb3[1] = 2\n```",
    "hex_and_underscores": "```edits\nb2[0x1f] = 1_000.5\n```",
    "unary_plus_minus": "```edits\nb2[0] = -+-2.5\n```",
    "exponent_literal": "```edits\nb2[1] = 1e-3\n```",
    "max_abs_ok": "```edits\nW1[0, 0] = 1e6\nW1[0, 1] = -1e6\n```",
    "none_value": "```edits\nb3[0] = None\n```",
    "complex_value": "```edits\nb3[0] = 1+2j\n```",
    "float32_overflow": "```edits\nb3[0] = 1e39\n```",
    "literal_inf": "```edits\nb3[0] = 1e400\n```",
    "multiply_to_overflow": "```edits\nb3[0] = 1e30\nb3[0] *= 1e30\n```",
    "chained_assignment": "```edits\nb3[0] = b3[1] = 1\n```",
    "nested_subscript": "```edits\nW1[0][1] = 1\n```",
    "annotated": "```edits\nb3[0]: float = 1\n```",
    "name_value": "```edits\nb3[0] = x\n```",
    "arithmetic_value": "```edits\nb3[0] = 1 + 1\n```",
    "divide_assign": "```edits\nb3[0] /= 2\n```",
    "ellipsis_index": "```edits\nW1[..., 0] = 1\n```",
    "list_index": "```edits\nW1[[0, 1], 0] = 1\n```",
    "too_many_indexes": "```edits\nW1[0, 0, 0] = 1\n```",
    "float_slice_bound": "```edits\nb1[0.5:2] = 1\n```",
    "ragged_list": "```edits\nW3[0:2, 0:2] = [[1, 2], [3]]\n```",
    "dict_value": "```edits\nb3[0] = {1: 2}\n```",
    "huge_int_value": "```edits\nb3[0] = 0x" + "f" * 300 + "\n```",
    "import_statement": "```edits\nimport os\n```",
    "attribute_target": "```edits\nW1.T[0, 0] = 1\n```",
}


def digest(tensors):
    hasher = hashlib.sha256()
    for name in ("W1", "b1", "W2", "b2", "W3", "b3"):
        hasher.update(np.ascontiguousarray(tensors[name], dtype=np.float32).tobytes())
    return hasher.hexdigest()


def main(reference_folder: str) -> None:
    sys.path.insert(0, reference_folder)
    import minatar_grader

    results = {}
    for name, answer in CASES.items():
        try:
            tensors, count = minatar_grader.apply_edits(answer)
            results[name] = {"answer": answer, "edit_count": count, "sha256": digest(tensors)}
        except Exception as error:  # the reference lets some exceptions escape; they are errors too
            results[name] = {"answer": answer, "error": type(error).__name__}
    path = Path(__file__).with_name("edits_cases.json")
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {len(results)} cases to {path}")


if __name__ == "__main__":
    main(sys.argv[1])
