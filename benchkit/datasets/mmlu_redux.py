"""MMLU-Redux: expert error labels for 5,700 MMLU items, and HELM models' chosen letters.

Source: Gema et al., "Are We Done With MMLU?" (arXiv 2406.04127), repository ``aryopg/mmlu-redux``
at a pinned commit, license CC BY 4.0 (MMLU question text: MIT). :func:`load` reads, by ``part``:

- ``"labels"``: the 57 raw annotator files ``mmlu_redux/mmlu_<subject>.csv`` (100 items each), with
  the error type normalized to :data:`ERROR_TYPES` (the raw spelling is kept);
- ``"helm-labelled"``: those 5,700 items x the chosen letter of 14 HELM models
  (``outputs/multi_expert_helm/all.csv``) as a :class:`benchkit.ResponseSet`;
- ``"helm-full"``: the full MMLU test x 10 HELM models (``outputs/original_helm_combined/``), joined
  to the answer keys of the ``mmlu`` source by question text, as a ResponseSet;
- ``"corruption"``: the injected-error tests (``outputs/corruption_tests/``), a table;
- ``"helm-raw"``: the two raw HELM scenario-state files (``outputs/original_helm/``), a table;
- ``"em-per-error"``: the authors' per-subject exact-match table per error condition, a table.

Measured on the pinned files (and checked in the tests): 5,700 labelled items, 370 not ``ok``
(bad_question_clarity 132, wrong_groundtruth 107, multiple_correct_answers 39, no_correct_answer
35, expert 32, bad_options_clarity 25); HELM full: 14,015 rows, 14,014 joined.
"""
from __future__ import annotations

import ast
import csv
import dataclasses
import functools
import io
import json
import re

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError, check_choice
from benchkit.datasets import mmlu as _mmlu
from benchkit.datasets._fetch import Source, SourceFile, fetch_file

__all__ = ["SOURCE", "ERROR_TYPES", "PARTS", "HELM_LABELLED_MODELS", "HELM_FULL_MODELS",
           "CORRUPTIONS", "normalize_error_type", "load"]

_REPO = "aryopg/mmlu-redux"
_COMMIT = "4563cfa79b659d76716e5b6019f46bba85fa02db"

# (path, sha256, size in bytes) of every file the loader reads, computed from the mirror of the
# pinned commit (unchanged copies; the paths are the repository's, so the default raw-GitHub URL
# at the commit is right).
_FILES: tuple[tuple[str, str, int], ...] = (
    ("mmlu_redux/mmlu_abstract_algebra.csv", "83b98626d7615b9594d86117ae6cb02cbbea8e3e5e285eb2ced1fb8caa245b99", 35621),
    ("mmlu_redux/mmlu_anatomy.csv", "e73da98de4080a67d7bf832d12b5cf5b1156aa7aaec3d44b1a20b730bc5782a8", 31472),
    ("mmlu_redux/mmlu_astronomy.csv", "739ed768fb9c151d341178a122f0d2553df3c6af2a4209a15f0f97f54595eb8b", 35665),
    ("mmlu_redux/mmlu_business_ethics.csv", "2c732b4bf5430225bfe4329d3aaa445917c3dc961942d5bd5336555c5fce86a9", 47943),
    ("mmlu_redux/mmlu_clinical_knowledge.csv", "37ec6e0d612370a88f69a3a560f1d43877f084ea819dc8155a622ae75d7a82b0", 34620),
    ("mmlu_redux/mmlu_college_biology.csv", "0f1ef7b8f19743c1ac0d1d4bf8351ea73be681b4025a6b4c6c4aa078d4875c8f", 41490),
    ("mmlu_redux/mmlu_college_chemistry.csv", "5d7ee98e59a528e1c77960a226ca11c20ddbdd7039c86584f227e74597785664", 28685),
    ("mmlu_redux/mmlu_college_computer_science.csv", "f06bcec202a789d98d26689d9667fdcd5fa07c860376f3fb3da85c851f046c92", 47555),
    ("mmlu_redux/mmlu_college_mathematics.csv", "e3db7906b8aabef98c50eb25eae22a1aeb5c6711ad041e9c7509608992ee88c1", 25357),
    ("mmlu_redux/mmlu_college_medicine.csv", "2a0f750982849d6f30c7edc9731df61f7f84cd2cf4d9c855e8e4e35b53688f76", 53510),
    ("mmlu_redux/mmlu_college_physics.csv", "bd76f9eec35a3212a29056a42a3bf41cd84531cd34cc43de088f3a5349df5472", 33259),
    ("mmlu_redux/mmlu_computer_security.csv", "03ac8a43d2407e274116988767399909b89bc1f16f94f59df9840fa659d4ea22", 37542),
    ("mmlu_redux/mmlu_conceptual_physics.csv", "29619a9d6f5d44066b3b33df64e8181a2a799f24691928959d215f0a983336e3", 29010),
    ("mmlu_redux/mmlu_econometrics.csv", "c4812fe99ee0ee47772751b1bd1e48f4929f5b222a2c2e3cab125120f5be58c0", 47623),
    ("mmlu_redux/mmlu_electrical_engineering.csv", "6afe4e2c28e650d51d9baecf68a364ee20a14b99d9ab616a749dcae707f7173e", 16676),
    ("mmlu_redux/mmlu_elementary_mathematics.csv", "358c0aa97224d280988eac7fa2d4a4c8bd8db7ab61fa1fc0554768a1473d2ce7", 19878),
    ("mmlu_redux/mmlu_formal_logic.csv", "0d5a15ed033a7006a7d790fef09e6e3c6c63d46c4a8d7b979d1afd63032a361a", 42193),
    ("mmlu_redux/mmlu_global_facts.csv", "8ffa62d058bf4a81916c348df67d3745047eea2fac032a67dae727c3442255a2", 29053),
    ("mmlu_redux/mmlu_high_school_biology.csv", "98204af59693f3497f594ce9689e7adadf82a5c77ed79d07fe3f794554179e42", 43807),
    ("mmlu_redux/mmlu_high_school_chemistry.csv", "eed7393a71b61af9597df3887cce470ff8ec655676e1c15bcf9a732de40f3605", 33552),
    ("mmlu_redux/mmlu_high_school_computer_science.csv", "21c739d43b30b59c2d3cc3ec15048eee22bfac3a02bb3bae2b34ceb7fac1339b", 45736),
    ("mmlu_redux/mmlu_high_school_european_history.csv", "e1b3fc89883c4a372fc592d5329db8951855cd0d59043792c00ff30418a7bac7", 164295),
    ("mmlu_redux/mmlu_high_school_geography.csv", "360e7a8c0930fd4f0b4af186415398a9015964b058ec31df3c3b524a10c6cd48", 26348),
    ("mmlu_redux/mmlu_high_school_government_and_politics.csv", "fa69b567414fb06b61d6ab2e7472e793cb40747aff734824c675607a0141da78", 42409),
    ("mmlu_redux/mmlu_high_school_macroeconomics.csv", "5f2510ec01205542a999fbc51d572cc37bbb10754d2efa52d0c73638aebaf71b", 41711),
    ("mmlu_redux/mmlu_high_school_mathematics.csv", "bb1af2d2e0bd081453fce188892c49efae34697188c108c855b53b219c2e9c7f", 20496),
    ("mmlu_redux/mmlu_high_school_microeconomics.csv", "9c920bbeac17308c30e65a6a35c62acd08ff6081d63191c4a32bfd105f702fdf", 37144),
    ("mmlu_redux/mmlu_high_school_physics.csv", "f0d59f8e836e2c3b6aa739d66624d5d2f68fb91102f452c5292b57aea787b169", 47140),
    ("mmlu_redux/mmlu_high_school_psychology.csv", "b83eda4e4d941667b84e529066902efaf7511b7ff9fbbdc13019a261c4d9f240", 34092),
    ("mmlu_redux/mmlu_high_school_statistics.csv", "45351ff30906879249de60e5735c9288a59a31850c95f5040ca47a5f1eca06a1", 53152),
    ("mmlu_redux/mmlu_high_school_us_history.csv", "1ebb166a783242ab3f6296e00744781b4a72076f2c071911645335c55c146df2", 151873),
    ("mmlu_redux/mmlu_high_school_world_history.csv", "5fe5e4d32d2bc6c4b04686f6da915360a00460ff2fe338797ab28547a85f1cdf", 158855),
    ("mmlu_redux/mmlu_human_aging.csv", "a16d1fbba92f5e657c34c4d1b67d323221ebcd5dbe469a57e95eaf2efaa4fca1", 33805),
    ("mmlu_redux/mmlu_human_sexuality.csv", "91f9c340a8882a3c7c7276fb430e6ee290ca2131b04c4faa514566cc1797630e", 29287),
    ("mmlu_redux/mmlu_international_law.csv", "bfd10468b8507f8b3393ea36731b1c80894582add5b53763dab8fde1a288446c", 43033),
    ("mmlu_redux/mmlu_jurisprudence.csv", "f9bce2ef3fdc89ec46eb4a211153eb8e488239e311f0736f2e932a1eb24f45b6", 31260),
    ("mmlu_redux/mmlu_logical_fallacies.csv", "d965565c9d3a955919bab2349d8efba10c22fbc27f63f1593223a220c3ac70ed", 37293),
    ("mmlu_redux/mmlu_machine_learning.csv", "7350cb93c40e3ba7ccaff868a918f41d9fa6fd392a64a13697c9647998613ece", 36947),
    ("mmlu_redux/mmlu_management.csv", "6b782b960b55334aa0088153f96f7c2dfb5a625bfc5ebcce076d5d310620d2f0", 27024),
    ("mmlu_redux/mmlu_marketing.csv", "4efc6eab77670e52914144a7cbba7b553e4c8b29f10e17c1257a18bb3c0e2c71", 31470),
    ("mmlu_redux/mmlu_medical_genetics.csv", "c83f59380ad7cdeaee9e1c7fcb7a2be389e402b077ddb3415d628cc036a2bdfa", 26032),
    ("mmlu_redux/mmlu_miscellaneous.csv", "c3d24001333a2c9200e74eefbef06c3e816c72a452f691b335f538fc8cfcbfb7", 18602),
    ("mmlu_redux/mmlu_moral_disputes.csv", "8548bea470b9d670cb8258db9a9fd39da2c43c83519a4fa99c343f75bef45875", 33010),
    ("mmlu_redux/mmlu_moral_scenarios.csv", "df15f12d366670fa0f1577d4d5afdbc43b0c0137dd2c87b2c8cf830d5379b7ba", 41490),
    ("mmlu_redux/mmlu_nutrition.csv", "8f894f2d26f880ff5e074a362b97e1cbaa59b867c7c23bd49d66c571022d11e6", 36527),
    ("mmlu_redux/mmlu_philosophy.csv", "061d8b91cab7fbd5548927587485fe675ef39701a888aa9e29fc9a55e3e18cbb", 32466),
    ("mmlu_redux/mmlu_prehistory.csv", "51afec70b541fbb757a6b12da14120c4104d5d6ac4d5886577eb6dcd5186f474", 33735),
    ("mmlu_redux/mmlu_professional_accounting.csv", "123f075cae47b09feaa7160cd8069e2d525cedab882e6a8ae94360aa19119f33", 53928),
    ("mmlu_redux/mmlu_professional_law.csv", "c2a019177708496f4fcd74460e9c1f2bbe0feb25ee7709eddc51adbb22a8e95c", 118092),
    ("mmlu_redux/mmlu_professional_medicine.csv", "3c024ec4ebd67683b288068f40221b9caf222ef944f24e637652fd2e8776760a", 86801),
    ("mmlu_redux/mmlu_professional_psychology.csv", "2d9ac1ed86438653ea0f82ff8249d809674a23574e71324caf13eb5dc2e34cf7", 44754),
    ("mmlu_redux/mmlu_public_relations.csv", "7f4d9b17365085e946a517ad5abf75153d89dd7858ca3909803a329f5baee1d2", 34467),
    ("mmlu_redux/mmlu_security_studies.csv", "ed0309287be30dad969e44d06b5e1bf48ba82d5a891c44d2d73046dab1649015", 92161),
    ("mmlu_redux/mmlu_sociology.csv", "2d8d77a4a4eacd988e08221ef827d40e54ac5ab81e9d20f3f96427a405738b99", 39674),
    ("mmlu_redux/mmlu_us_foreign_policy.csv", "6e379c770dbf98d08a5026caeccbe57fbf8c1ed5a5aabb98b97ee5a1a2b39d0f", 36210),
    ("mmlu_redux/mmlu_virology.csv", "eca12346cf4ccabab2264878db690da5e471f5c773a146582c05356ba535d26b", 30147),
    ("mmlu_redux/mmlu_world_religions.csv", "f3b0152249088c512a60b07d31e23bfe3104b4d079a595d3a19ab4e5425d61f2", 24661),
    ("outputs/corruption_tests/corruption_test_BOC.csv", "7427b6f36a455dba0de447deb5194818104581c81862507d1d05f9110e539f59", 26215),
    ("outputs/corruption_tests/corruption_test_BQC.csv", "7722e4c817ccc42db397474bcb13c69868a3b04214e1fd718f029d4364f795fd", 38781),
    ("outputs/corruption_tests/corruption_test_MCA.csv", "e3c4d0fbaf0a50726e2000096814c34aa26a3491d116015fabd4d085ad828551", 32220),
    ("outputs/corruption_tests/corruption_test_NCA.csv", "a9c7a6005e4f272d67dc9e53d5c9e10ee4cd2a358a28d179c6d7431574fd8a32", 25876),
    ("outputs/corruption_tests/corruption_test_WG.csv", "b19ff95e7175c99c80a865a2bd9ea03b20bc9da5e1227fde3d4518cfd68558d4", 26808),
    ("outputs/multi_expert_helm/all.csv", "a16015ed7006c82b35de7fdf9061d4cb6c936401077fd68e42a55497426aa9ab", 3427558),
    ("outputs/multi_expert_helm/mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv", "ca0e8bfee74f13609f9ff2027d0cbcf7951f0596bf147a8c22e96543fb4f4bb9", 22167),
    ("outputs/original_helm/meta_llama-3-70b/global_facts.json", "67756f8c6b7315fa66c57fd2353a6d859296a5b75b5fcd9e4f0e40d417b31e67", 353599),
    ("outputs/original_helm/openai_gpt-4-0613/global_facts.json", "9723da48c8a817aedc30d1b3ef3dd5ab3fd416e729b064fca597bf03d4a279cf", 357145),
    ("outputs/original_helm_combined/abstract_algebra.csv", "e3e53d7071bd4c743f97dda2db9b6edb7a488b741722019908cac34003d5e5f0", 20801),
    ("outputs/original_helm_combined/anatomy.csv", "ce39658d981a24ade48113fe24a0060c681044cbde0b26ca953d1e82182f3761", 34787),
    ("outputs/original_helm_combined/astronomy.csv", "773df6bf5f4f3820b26eba13ac8caffb4db1a02e51fad474365d81a7bb430f51", 48689),
    ("outputs/original_helm_combined/business_ethics.csv", "679ce0bed4828a5e884cadd40bfc43e905f16719a88f8220e52e639b5c11fb84", 34712),
    ("outputs/original_helm_combined/clinical_knowledge.csv", "bc2a249c1638545fac786314e7649febaa586ac6d27b61a31f15aa1965bd831a", 65777),
    ("outputs/original_helm_combined/college_biology.csv", "9883130930ef8ade79f5d2b44e20a342bda2c9f8ae6dd935913a4890d4a7012c", 50615),
    ("outputs/original_helm_combined/college_chemistry.csv", "4dabc1ac9897a7668dbc93df0935c9af3c3613ea14854903505bc6ffc01a4974", 26191),
    ("outputs/original_helm_combined/college_computer_science.csv", "a794833ee18dd9fdf126bc528b974c1ce0576fa4797d6925a0750e13a53a1847", 44102),
    ("outputs/original_helm_combined/college_mathematics.csv", "a89e4a13eb3ecf1b4b8ec7ba5a83fec186821e2969ac1e6c537af66a0dc768a4", 26151),
    ("outputs/original_helm_combined/college_medicine.csv", "3e2bb7f3b6d891d1f639696f46ccbf37b1618771a9aadb48f3f42599a4cadfc7", 84571),
    ("outputs/original_helm_combined/college_physics.csv", "4dd8babe738a7dbf1a4d409a182ac37c858bb04bae95607aecc3c9edeba467f8", 28057),
    ("outputs/original_helm_combined/computer_security.csv", "4834bba216cff5a4e9f18a2dccf6a39998ebe823a710eb7e06cd3881c0786d53", 28575),
    ("outputs/original_helm_combined/conceptual_physics.csv", "56b258a478a5ec2e7ead674e72fac26f96df490c2ffedb1c7337d11fc2da83ad", 43481),
    ("outputs/original_helm_combined/econometrics.csv", "a2d8d89f5fa98006adbcf49a647a90f6904e1068ab0aceded05755b94cda067f", 48248),
    ("outputs/original_helm_combined/electrical_engineering.csv", "5f9be91b05d9ac77c0a3877a936a8c7658906468961c4468ecdf4f74627ce9b8", 26932),
    ("outputs/original_helm_combined/elementary_mathematics.csv", "c2bc3a78efaf9ca8a35b80c1e39efc1193532c3df5ffa3e78aaf633945f414fb", 74303),
    ("outputs/original_helm_combined/formal_logic.csv", "97b495556aa63057167130c60f9e2d73cf221dbb774f4fcab882860be7a49a46", 51551),
    ("outputs/original_helm_combined/global_facts.csv", "a25fdd86640e9608bbe0fa683dc1489926e45fd34ce48ec4e3610405f467c46c", 19802),
    ("outputs/original_helm_combined/high_school_biology.csv", "98f8cb1b01cd71918b36c5ed9e7b1df2339dc061f65806bd6f3c3be590888808", 113384),
    ("outputs/original_helm_combined/high_school_chemistry.csv", "246b7365e0bb102e4aab769c3638dfcdc23ca382d1e1fd34c2d15f6fe6b2d9c6", 60971),
    ("outputs/original_helm_combined/high_school_computer_science.csv", "283231215d4b0e3b8af1ee774687daac289d464ad4940e179f75283a09213ff8", 45998),
    ("outputs/original_helm_combined/high_school_european_history.csv", "466d8e005450e130344bb9c16828927fb80b7b963bc4a2b9b8ca825a6d822f7b", 272949),
    ("outputs/original_helm_combined/high_school_geography.csv", "309dbcefb713f265e893382d238d03ef42b50e15d0fba60bbba8253a230d7075", 44390),
    ("outputs/original_helm_combined/high_school_government_and_politics.csv", "1365d51d0d6b0e7631a4886d831f50a5d646d2e42a0cfed9f60f1dd9437e818b", 68534),
    ("outputs/original_helm_combined/high_school_macroeconomics.csv", "3e1a2042ecface7e3e07261243a3bedec0746aa7767de48808392525d727a74c", 123316),
    ("outputs/original_helm_combined/high_school_mathematics.csv", "d51f7ff864608b74374d10a5cf5f09b4d8d053891c4032233980e9498fd4244f", 58589),
    ("outputs/original_helm_combined/high_school_microeconomics.csv", "13854f60d9dfcf9dddbfa5e3415bb0923ccbad98f7d878bb13bddf922696c9f3", 78587),
    ("outputs/original_helm_combined/high_school_physics.csv", "90c1f0eb713f29e30534a7459b86f2392d94c8a0f82bf4f1c31b0d70d18bb4c0", 61532),
    ("outputs/original_helm_combined/high_school_psychology.csv", "12676d1ed3e83f21d5e56d4c26ae5f06ba5cecc53090f92895d6d9c8c3333ea3", 162316),
    ("outputs/original_helm_combined/high_school_statistics.csv", "499b992551b54a698cc43f2ed91e9246508e3479139a1c242bb0dfe5f7241ba0", 113508),
    ("outputs/original_helm_combined/high_school_us_history.csv", "0d88897fd1154d78ea261513a72d0133f8d953f9589e64a45f9d6f8cc00683e4", 300175),
    ("outputs/original_helm_combined/high_school_world_history.csv", "16d9b006b0283af86b2936c428c286e509efafdb3b3a51a2a3dec25a02d6b75f", 382359),
    ("outputs/original_helm_combined/human_aging.csv", "0cf1504455ce000f26a5e54d0c22a8d824a0e1b4595f21ac734ede0d7a482cfd", 48736),
    ("outputs/original_helm_combined/human_sexuality.csv", "618ef9272b7223f3182e67b531a635ab4dc1edb9a647dc69e8f97db74d5fad2e", 33647),
    ("outputs/original_helm_combined/international_law.csv", "23fda5dd64c0faf39530720dd3b2dd246aaffb63cace222e7aec31745eba6074", 55094),
    ("outputs/original_helm_combined/jurisprudence.csv", "7be08abeeba4afb7c52fe09612cf84a60e3f5246ee837803aeaadcef4c990dbe", 35433),
    ("outputs/original_helm_combined/logical_fallacies.csv", "bd452ad83cc9bb75a0656673786274e200ecd0ffaa929217564e84a5beaef7bf", 52243),
    ("outputs/original_helm_combined/machine_learning.csv", "4e84c1f8cef2a6d4715e5f1c6ebcd70c53d74d7476b94b26dc0ac342b63dca4d", 35444),
    ("outputs/original_helm_combined/management.csv", "e82436193ac0b7a5fc52affeb8478880704efe4138abda6c15b31aee81cc0dd7", 21312),
    ("outputs/original_helm_combined/marketing.csv", "6128cddda2c5e1956a8ca86a5030c40ec3214da7cffa6e5480d3a3b223695b31", 65865),
    ("outputs/original_helm_combined/medical_genetics.csv", "846bd35c07c80d93804f95dfade72673a9161e21b905b65f03334aa1e9b3f768", 22160),
    ("outputs/original_helm_combined/miscellaneous.csv", "0d433375741d94359582229af33d5e7043ef88e83415c5aae352b52fadc16cb5", 156256),
    ("outputs/original_helm_combined/moral_disputes.csv", "e4fb17f636a8b71282795d5f26424304ce46e2dff266ecfaa45cbd3c0ba12bae", 112202),
    ("outputs/original_helm_combined/moral_scenarios.csv", "21b53b1b785967d7cc4a7855a74100872d745fdfec0ec2414dac06d6b7ee69c7", 385024),
    ("outputs/original_helm_combined/nutrition.csv", "c41f34ddedfe3f9e101034c09101edb0de6629048a61d326c50032d33d343e41", 96399),
    ("outputs/original_helm_combined/philosophy.csv", "512c0031fb3853f1746b05ae67b01ee84d39870a9e32806469087289483ca948", 83807),
    ("outputs/original_helm_combined/prehistory.csv", "8ec6ace30b915a5f55e3a509f377cd0667c8efa9f296a1aae80413039279401a", 93324),
    ("outputs/original_helm_combined/professional_accounting.csv", "a9ec1375eaf478a2ecfd515c745398a53f651b46b43557b45f9a8417d55940c5", 128023),
    ("outputs/original_helm_combined/professional_law.csv", "d8f6c0d9300a728e8e15acf332a041a4041416e4afc195a3377dcdb1628f97f0", 1914455),
    ("outputs/original_helm_combined/professional_medicine.csv", "fb4aaf6c6717393460ea2acd1a3371cfd7dc13c0e1ae3bdfdb4ac1e9e47ff818", 221125),
    ("outputs/original_helm_combined/professional_psychology.csv", "d719ced9bb7f10c037cd011fcffacd93be6561098e28d21593186279058513b2", 232970),
    ("outputs/original_helm_combined/public_relations.csv", "a5c07e1ec20a848ea25256472149129da515da7e323f47a0866cc01af60b0c5a", 29930),
    ("outputs/original_helm_combined/security_studies.csv", "e4834bb5a27bb7b906b846ab7948f9d40e6a1326a46a9f93d8dd49ca25f703a9", 207836),
    ("outputs/original_helm_combined/sociology.csv", "b182f9a0bac577396bf4b64b37ddda5583ed2f4b6887e0bf5574131027aff4e6", 68737),
    ("outputs/original_helm_combined/us_foreign_policy.csv", "fb5e14bd9edfa0c82350ba1fc2fe4ee526320b4d34e5f87128b79b19b5810733", 29663),
    ("outputs/original_helm_combined/virology.csv", "ddb7b23164ceb306c0c1e4064dbf334cfe188c9629b9edc78badf4f98f7bfe20", 40745),
    ("outputs/original_helm_combined/world_religions.csv", "c3acbc7f17a23103a4ae387dad26fb286bf017c28f4745e402185c3291c2803d", 27402),
)

SOURCE = Source(
    name="mmlu-redux",
    repo=_REPO,
    commit=_COMMIT,
    license="CC BY 4.0 (LICENSE); MMLU question text: MIT (hendrycks/test)",
    files=tuple(SourceFile(p, h, n) for p, h, n in _FILES),
    description=(
        "MMLU-Redux expert error labels (5,700 items, 370 flawed) with the chosen letters of 14 HELM "
        "models; full MMLU test x 10 HELM models; injected-error tests; raw HELM scenario states"
    ),
)

#: The normalized error-type vocabulary (``ok`` = no error found; ``expert`` = the annotator could
#: not judge the item without a domain expert).
ERROR_TYPES: tuple[str, ...] = (
    "ok",
    "wrong_groundtruth",
    "no_correct_answer",
    "multiple_correct_answers",
    "bad_question_clarity",
    "bad_options_clarity",
    "expert",
)

PARTS: tuple[str, ...] = ("labels", "helm-labelled", "helm-full", "corruption", "helm-raw",
                          "em-per-error")

#: The 14 HELM models of ``outputs/multi_expert_helm/all.csv``, in file order.
HELM_LABELLED_MODELS: tuple[str, ...] = (
    "anthropic_claude-3-5-sonnet-20240620", "anthropic_claude-3-opus-20240229",
    "meta_llama-3.1-405b-instruct-turbo", "openai_gpt-4o-2024-05-13",
    "qwen_qwen2.5-72b-instruct-turbo", "google_gemini-1.5-pro-001", "openai_gpt-4-0613",
    "qwen_qwen2-72b-instruct", "writer_palmyra-x-004", "openai_gpt-4-turbo-2024-04-09",
    "google_gemini-1.5-pro-preview-0409", "meta_llama-3.2-90b-vision-instruct-turbo",
    "meta_llama-3.1-70b-instruct-turbo", "mistralai_mistral-large-2407",
)

#: The 10 HELM models of ``outputs/original_helm_combined/<subject>.csv``, in file order.
HELM_FULL_MODELS: tuple[str, ...] = (
    "anthropic_claude-3-opus-20240229", "openai_gpt-4o-2024-05-13", "openai_gpt-4-0613",
    "google_gemini-1.5-pro-preview-0409", "openai_gpt-4-1106-preview", "meta_llama-3-70b",
    "writer_palmyra-x-v3", "google_text-unicorn@001", "mistralai_mixtral-8x22b",
    "google_gemini-1.5-flash-preview-0514",
)

#: Injected-error test files: code -> normalized error type.
CORRUPTIONS: dict[str, str] = {
    "BOC": "bad_options_clarity",
    "BQC": "bad_question_clarity",
    "MCA": "multiple_correct_answers",
    "NCA": "no_correct_answer",
    "WG": "wrong_groundtruth",
}

_HELM_RAW_MODELS = ("meta_llama-3-70b", "openai_gpt-4-0613")
_LETTERS = "ABCD"
_LETTER_SET = frozenset(_LETTERS)  # not `in _LETTERS`: "" is a substring of every string
_ALL_CSV = "outputs/multi_expert_helm/all.csv"
_EM_CSV = "outputs/multi_expert_helm/mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv"


def _meta(part: str, files: list[str], **extra) -> dict:
    return {
        "source": SOURCE.name,
        "part": part,
        "url": SOURCE.repo_url,
        "commit": SOURCE.commit,
        "license": SOURCE.license,
        "files": files,
        **extra,
    }


# ------------------------------------------------------------------------------------ parsing


def normalize_error_type(raw: str) -> str:
    """Map an annotator's error-type spelling to :data:`ERROR_TYPES`.

    Case, surrounding spaces and the separator (space or underscore) are ignored: ``"OK "``,
    ``"Ok"`` -> ``"ok"``; ``"Wrong Groundtruth"``, ``"wrong_groundtruth "`` ->
    ``"wrong_groundtruth"``; ``"No correct Answer"`` -> ``"no_correct_answer"``. Anything else is
    an error naming the value.
    """
    key = re.sub(r"[\s_]+", "_", str(raw).strip().lower())
    if key not in ERROR_TYPES:
        raise BenchkitValueError(
            f"error_type {raw!r} is not a known MMLU-Redux label; known (after lower-casing and "
            f"joining words with '_'): {', '.join(ERROR_TYPES)}"
        )
    return key


def _decode(data: bytes) -> tuple[str, str]:
    """UTF-8, else Mac OS Roman (see :func:`load` Notes)."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("mac_roman"), "mac_roman"


def _parse_choices(text: str, where: str) -> list[str]:
    """A choices cell: a Python or JSON list literal of strings."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as exc:
        raise BenchkitValueError(f"{where}: choices {text[:60]!r} is not a list literal ({exc})") from exc
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BenchkitValueError(f"{where}: choices {text[:60]!r} is not a list of strings")
    return value


_STR_LIT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)


def _parse_numpy_choices(text: str, where: str) -> list[str]:
    """A choices cell printed by numpy (``['a' 'b'\\n 'c']``: no commas between the strings)."""
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise BenchkitValueError(f"{where}: choices {s[:60]!r} is not a bracketed list")
    inner = s[1:-1]
    rest = _STR_LIT.sub("", inner).strip()
    if rest:
        raise BenchkitValueError(f"{where}: choices {s[:60]!r} has text outside quotes: {rest[:30]!r}")
    return [ast.literal_eval(tok) for tok in _STR_LIT.findall(inner)]


def _ws(text: str) -> str:
    """Whitespace-normalized text: runs of whitespace (incl. no-break space) -> one space, stripped."""
    return " ".join(text.split())


_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def _align_key(text: str) -> str:
    """ASCII letters and digits only, lower case: survives the character losses of all.csv."""
    return _NOT_ALNUM.sub("", text.lower())


@functools.lru_cache(maxsize=64)
def _read_raw_labels(local_path: str) -> tuple[str, str, tuple[dict, ...]]:
    """(encoding, delimiter, rows as dicts) of one raw annotator file."""
    with open(local_path, "rb") as fh:
        text, encoding = _decode(fh.read())
    header = text.split("\n", 1)[0]
    delimiter = ";" if header.count(";") > header.count(",") else ","
    rows = tuple(csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter))
    return encoding, delimiter, rows


@functools.lru_cache(maxsize=256)
def _read_csv(local_path: str) -> tuple[dict, ...]:
    with open(local_path, encoding="utf-8", newline="") as fh:
        return tuple(csv.DictReader(fh))


# ------------------------------------------------------------------------------------ labels


@functools.lru_cache(maxsize=2)
def _labels_frame(local_paths: tuple[str, ...]) -> pd.DataFrame:
    """The labels table, memoized on the verified local paths (see :func:`_labels`)."""
    records = []
    for subject, rel, local in zip(_mmlu.SUBJECTS, _label_paths(), local_paths):
        encoding, delimiter, rows = _read_raw_labels(local)
        need = {"question", "choices", "answer", "error_type", "source", "correct_answer",
                "potential_reason"}
        missing = need.difference(rows[0].keys()) if rows else need
        if missing:
            raise BenchkitValueError(f"{rel}: columns {sorted(missing)} are missing")
        for i, r in enumerate(rows):
            where = f"{rel} row {i}"
            options = _parse_choices(r["choices"], where)
            answer = r["answer"].strip()
            if answer not in ("0", "1", "2", "3") or len(options) != 4:
                raise BenchkitValueError(f"{where}: answer {answer!r} / {len(options)} options; "
                                         "expected an index 0-3 and 4 options")
            records.append({
                "item": f"mmlu-redux/{subject}/{i}",
                "benchmark": "mmlu-redux",
                "source": subject,
                "subject": subject,
                "row": i,
                "text": r["question"],
                "options": options,
                "answer_index": int(answer),
                "answer_key": _LETTERS[int(answer)],
                "error_type": normalize_error_type(r["error_type"]),
                "error_type_raw": r["error_type"],
                "correct_answer": r["correct_answer"],
                "annotation_source": r["source"],
                "potential_reason": r["potential_reason"],
                "file": rel,
                "file_encoding": encoding,
                "file_delimiter": delimiter,
            })
    frame = pd.DataFrame.from_records(records)
    frame["mmlu_item"], frame["mmlu_match"] = _match_to_mmlu(frame)
    return frame


@functools.lru_cache(maxsize=1)
def _mmlu_lookup_cached(mirror_key: str):
    items = _mmlu.load(part="mmlu", split="test")
    full: dict[tuple, list[int]] = {}
    qonly: dict[tuple, list[int]] = {}
    for pos, (s, q, opts) in enumerate(zip(items["source"], items["text"], items["options"])):
        full.setdefault((s, _ws(q), tuple(_ws(o) for o in opts)), []).append(pos)
        qonly.setdefault((s, _ws(q)), []).append(pos)
    return items, items["answer_key"].to_numpy(dtype=object), full, qonly, {}


def _mmlu_lookup():
    """MMLU test items, answer keys and text lookups (memoized on the verified file paths)."""
    # fetch (and so verify) every file each time; memoize on where they were found
    paths = tuple(str(fetch_file(_mmlu.SOURCE, f"data_mmlu/test/{s}_test.csv")) for s in _mmlu.SUBJECTS)
    items, keys, full, qonly, ascii_by_subject = _mmlu_lookup_cached("|".join(paths))
    return items.copy(), keys, full, qonly, ascii_by_subject


class _MmluMatcher:
    """Finds the MMLU test row (mmlu source) of a question of a given subject.

    Levels, first hit wins: (1) the same whitespace-normalized question text and options;
    (2) the same question text, when exactly one row of the subject has it; (3) the same ASCII
    letters and digits of question and options (survives lost or mis-decoded characters such as
    U+FFFD, 'Õ' for '’'), when unique. Among identical rows the first not yet matched is used;
    identical rows with different answer keys are a failure.
    """

    def __init__(self):
        self.items, self.keys, self.full, self.qonly, self._ascii = _mmlu_lookup()
        self.taken = np.zeros(len(self.items), dtype=bool)

    def _ascii_index(self, subject: str) -> dict[tuple, list[int]]:
        """Level-3 keys of one subject, built on first use (memoized with the lookup)."""
        if subject not in self._ascii:
            index: dict[tuple, list[int]] = {}
            positions = np.nonzero(self.items["source"].to_numpy(dtype=object) == subject)[0]
            texts = self.items["text"].to_numpy(dtype=object)
            options = self.items["options"].to_numpy(dtype=object)
            for pos in positions:
                key = (_align_key(texts[pos]), tuple(_align_key(o) for o in options[pos]))
                index.setdefault(key, []).append(int(pos))
            self._ascii[subject] = index
        return self._ascii[subject]

    def match(self, subject: str, question: str, options) -> tuple[int | None, str]:
        """(row position or None, how it matched or why it failed)."""
        cand, how = self.full.get((subject, _ws(question), tuple(_ws(o) for o in options))), "text and options"
        if cand is None:
            qc = self.qonly.get((subject, _ws(question)))
            if qc is not None and len(qc) == 1:
                cand, how = qc, "question text only (options differ)"
        if cand is None:
            ac = self._ascii_index(subject).get((_align_key(question),
                                                 tuple(_align_key(o) for o in options)))
            if ac is not None:
                cand, how = ac, "ASCII letters and digits of text and options"
        if cand is None:
            qc = self.qonly.get((subject, _ws(question)))
            if qc is None:
                return None, "no MMLU test question of the subject has this text"
            return None, (f"the question text matches {len(qc)} MMLU test rows whose options all "
                          "differ")
        if len({self.keys[p] for p in cand}) > 1:
            return None, "identical MMLU test rows disagree on the answer key"
        free = [p for p in cand if not self.taken[p]]
        if not free:
            return None, "every matching MMLU test row is already matched to another row"
        self.taken[free[0]] = True
        return free[0], how

    def twins(self) -> dict[int, int]:
        """Row position -> first row it is identical to (question and options)."""
        out = {}
        for pos in self.full.values():
            for p in pos[1:]:
                out[p] = pos[0]
        return out


def _match_to_mmlu(labels: pd.DataFrame) -> tuple[list, list]:
    """The MMLU test item id of each labelled item (or None) and how it matched."""
    matcher = _MmluMatcher()
    ids = matcher.items["item"].to_numpy(dtype=object)
    out, how = [], []
    for s, q, opts in zip(labels["subject"], labels["text"], labels["options"]):
        pos, h = matcher.match(s, q, opts)
        out.append(None if pos is None else ids[pos])
        how.append(h)
    return out, how


def _label_paths() -> tuple[str, ...]:
    return tuple(f"mmlu_redux/mmlu_{s}.csv" for s in _mmlu.SUBJECTS)


def _labels() -> pd.DataFrame:
    # fetch (and so verify the sha256 of) every file on every call; parse once per location
    local_paths = tuple(str(fetch_file(SOURCE, rel)) for rel in _label_paths())
    return _labels_frame(local_paths).copy()


# ------------------------------------------------------------------------------------ HELM


def _chosen(raw: str) -> str:
    """The answer state of a HELM output cell: the letter A-D, else NO_ANSWER."""
    from benchkit import NO_ANSWER

    s = raw.strip()
    return s if s in _LETTER_SET else NO_ANSWER


def _non_letters(values: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    out = {}
    for model, vals in values.items():
        counts: dict[str, int] = {}
        for v in vals:
            s = v.strip()
            if s not in _LETTER_SET:
                counts[s] = counts.get(s, 0) + 1
        out[model] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
    return out


def _helm_labelled():
    from benchkit import ResponseSet

    labels = _labels()
    local = fetch_file(SOURCE, _ALL_CSV)
    rows = _read_csv(str(local))
    if len(rows) != len(labels):
        raise BenchkitValueError(f"{_ALL_CSV} has {len(rows)} rows; the labels have {len(labels)}")
    missing = [m for m in HELM_LABELLED_MODELS if m not in rows[0]]
    if missing:
        raise BenchkitValueError(f"{_ALL_CSV} lacks model columns {missing}")
    # all.csv is the 57 annotator files concatenated in subject order; check it row by row.
    bad = []
    for i, (r, q, a, e) in enumerate(zip(rows, labels["text"], labels["answer_index"], labels["error_type"])):
        if _align_key(r["question"]) != _align_key(q) or int(r["groundtruth_answer"]) != a \
                or r["error_type"] != e:
            bad.append(i)
    if bad:
        raise BenchkitValueError(
            f"{_ALL_CSV} does not line up with the annotator files at {len(bad)} rows, e.g. row "
            f"{bad[0]}; the pinned files should align exactly"
        )
    n, m = len(rows), len(HELM_LABELLED_MODELS)
    raw = {mod: [r[mod] for r in rows] for mod in HELM_LABELLED_MODELS}
    answers = [_chosen(v) for mod in HELM_LABELLED_MODELS for v in raw[mod]]
    keys = np.tile(labels["answer_key"].to_numpy(dtype=object), m)
    responses = pd.DataFrame({
        "model": np.repeat(np.array(HELM_LABELLED_MODELS, dtype=object), n),
        "item": np.tile(labels["item"].to_numpy(dtype=object), m),
        "answer": answers,
        "correct": (np.array(answers, dtype=object) == keys).astype(np.float64),
    })
    models = pd.DataFrame({"model": list(HELM_LABELLED_MODELS), "order": range(m)})
    meta = _meta(
        "helm-labelled",
        list(_label_paths()) + [_ALL_CSV],
        n_items=n,
        n_models=m,
        n_not_ok=int((labels["error_type"] != "ok").sum()),
        error_type_counts=labels["error_type"].value_counts().to_dict(),
        non_letter_outputs=_non_letters(raw),
        notes=(
            "answer = the HELM model's output letter (A-D); any other output (empty, 'The', "
            "'E', ...) is NO_ANSWER and incorrect. correct = answer == answer_key (the MMLU "
            "ground truth, groundtruth_answer in all.csv == answer in the annotator files). Item "
            "text, options and labels come from the annotator files (all.csv dropped a few "
            "non-ASCII characters); all.csv's aggregate columns (majority, entropy) are not used."
        ),
    )
    return ResponseSet.from_long(responses, models=models, items=labels, name="mmlu-redux",
                                 meta=meta)


def _helm_full():
    from benchkit import ResponseSet
    from benchkit.response_set import DropEntry, DropReport

    matcher = _MmluMatcher()
    items = matcher.items
    paths = [f"outputs/original_helm_combined/{s}.csv" for s in _mmlu.SUBJECTS]
    matched_pos: list[int] = []
    matched_raw: list[dict] = []
    helm_where: list[tuple[str, int]] = []
    failures: list[dict] = []
    how_counts: dict[str, int] = {}
    n_rows = 0
    for subject, rel in zip(_mmlu.SUBJECTS, paths):
        rows = _read_csv(str(fetch_file(SOURCE, rel)))
        absent = [m for m in HELM_FULL_MODELS if rows and m not in rows[0]]
        if absent:
            raise BenchkitValueError(f"{rel} lacks model columns {absent}")
        for j, r in enumerate(rows):
            n_rows += 1
            pos, how = matcher.match(subject, r["question"], _parse_choices(r["choices"], f"{rel} row {j}"))
            if pos is None:
                failures.append({"file": rel, "row": j, "subject": subject,
                                 "question": r["question"][:120], "reason": how})
                continue
            how_counts[how] = how_counts.get(how, 0) + 1
            matched_pos.append(pos)
            matched_raw.append(r)
            helm_where.append((rel, j))
    # MMLU test rows without a HELM row, and why
    taken = matcher.taken
    twin = matcher.twins()
    item_ids = items["item"].to_numpy(dtype=object)
    mmlu_unmatched = []
    for p in np.nonzero(~taken)[0]:
        if p in twin and taken[twin[p]]:
            why = "identical to an earlier row of the subject (HELM evaluates one copy)"
        else:
            why = "no HELM row could be joined to it"
        mmlu_unmatched.append({"item": item_ids[p], "reason": why})
    sub = items.iloc[matched_pos].reset_index(drop=True)
    sub["helm_file"] = [w[0] for w in helm_where]
    sub["helm_row"] = [w[1] for w in helm_where]
    n, m = len(sub), len(HELM_FULL_MODELS)
    raw = {mod: [r[mod] for r in matched_raw] for mod in HELM_FULL_MODELS}
    answers = [_chosen(v) for mod in HELM_FULL_MODELS for v in raw[mod]]
    keys = np.tile(sub["answer_key"].to_numpy(dtype=object), m)
    responses = pd.DataFrame({
        "model": np.repeat(np.array(HELM_FULL_MODELS, dtype=object), n),
        "item": np.tile(sub["item"].to_numpy(dtype=object), m),
        "answer": answers,
        "correct": (np.array(answers, dtype=object) == keys).astype(np.float64),
    })
    models = pd.DataFrame({"model": list(HELM_FULL_MODELS), "order": range(m)})
    reasons: dict[str, int] = {}
    for f in mmlu_unmatched:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    join = {
        "n_helm_rows": n_rows,
        "n_joined": len(sub),
        "n_failed": len(failures),
        "join_rate": len(sub) / n_rows,
        "failed": failures,
        "joined_by": how_counts,
        "n_mmlu_test_rows": len(items),
        "n_mmlu_rows_without_helm": len(mmlu_unmatched),
        "mmlu_rows_without_helm_reasons": reasons,
        "mmlu_rows_without_helm": mmlu_unmatched,
    }
    meta = _meta(
        "helm-full",
        paths + [f"mmlu:{p}" for p in (f"data_mmlu/test/{s}_test.csv" for s in _mmlu.SUBJECTS)],
        join=join,
        non_letter_outputs=_non_letters(raw),
        notes=(
            "HELM rows carry no gold answer: each is joined to the MMLU test row (mmlu source) of "
            "the same subject with the same whitespace-normalized question text and options; when "
            "no row has the same options, a unique row with the same question text is used. Item "
            "ids are the mmlu source's ('mmlu/<subject>/test/<row>'). answer = the output letter "
            "A-D, anything else NO_ANSWER (incorrect); correct = answer == the MMLU answer key. "
            "HELM rows that could not be joined are dropped and listed in meta['join'] and "
            "report."
        ),
    )
    rs = ResponseSet.from_long(responses, models=models, items=sub, name="mmlu-redux-helm-full",
                               meta=meta)
    entries = []
    by_reason: dict[str, list[dict]] = {}
    for f in failures:
        by_reason.setdefault(f["reason"], []).append(f)
    for reason, fs in by_reason.items():
        entries.append(DropEntry(
            f"HELM row not joined to an MMLU test item: {reason}",
            n_rows=len(fs) * m, n_cells=len(fs) * m,
            examples=tuple(f"{f['file']} row {f['row']}: {f['question'][:60]!r}" for f in fs[:3]),
        ))
    if entries:
        rs = dataclasses.replace(rs, report=DropReport(tuple(rs.report.entries) + tuple(entries)))
    return rs


# ------------------------------------------------------------------------------------ tables


def _corruption() -> pd.DataFrame:
    records = []
    for code, etype in CORRUPTIONS.items():
        rel = f"outputs/corruption_tests/corruption_test_{code}.csv"
        rows = _read_csv(str(fetch_file(SOURCE, rel)))
        for i, r in enumerate(rows):
            where = f"{rel} row {i}"
            options = _parse_numpy_choices(r["choices"], where)
            ans = r["answer"].strip()
            if ans == "n/a":
                idx = None
            elif ans.isdigit() and int(ans) < len(options):
                idx = int(ans)
            else:
                raise BenchkitValueError(f"{where}: answer {ans!r} is not an option index or 'n/a'")
            if normalize_error_type(r["corruptions"]) != etype:
                raise BenchkitValueError(f"{where}: corruptions {r['corruptions']!r} != {etype!r}")
            records.append({
                "item": f"mmlu-redux-corruption/{code}/{i}",
                "corruption": code,
                "error_type": etype,
                "row": i,
                "text": r["question"],
                "options": options,
                "n_options": len(options),
                "answer_index": idx,
                "answer_key": None if idx is None else "ABCDEFGHIJ"[idx],
                "subject": None if r["subject"].strip() == "n/a" else r["subject"],
                "original_dataset": r["original_dataset"],
                "llm_for_corruption": r.get("llm_for_corruption", r.get("llm for corruption")),
                "original_question": r.get("original_question"),
                "added_correct_answer": r.get("added_correct_answer"),
                "original_correct": r.get("original_correct"),
                "original_groundtruth": (None if r.get("original_grountruth") is None
                                         else int(r["original_grountruth"])),
                "file": rel,
            })
    frame = pd.DataFrame.from_records(records)
    frame["answer_index"] = frame["answer_index"].astype("Int64")
    frame["original_groundtruth"] = frame["original_groundtruth"].astype("Int64")
    return frame


def _helm_raw() -> pd.DataFrame:
    records = []
    for model in _HELM_RAW_MODELS:
        rel = f"outputs/original_helm/{model}/global_facts.json"
        with open(fetch_file(SOURCE, rel), encoding="utf-8") as fh:
            data = json.load(fh)
        spec = data["adapter_spec"]
        for k, st in enumerate(data["request_states"]):
            inst = st["instance"]
            refs = inst["references"]
            correct_idx = [i for i, ref in enumerate(refs) if "correct" in ref.get("tags", [])]
            mapping = st.get("output_mapping") or {}
            letter_of = {v: k2 for k2, v in mapping.items()}
            comps = st["result"]["completions"]
            text = comps[0]["text"] if comps else ""
            chosen = text.strip()
            key = (letter_of.get(refs[correct_idx[0]]["output"]["text"])
                   if len(correct_idx) == 1 else None)
            records.append({
                "model": model,
                "helm_model": spec.get("model"),
                "subject": "global_facts",
                "instance_id": inst["id"],
                "split": inst.get("split"),
                "request_index": k,
                "text": inst["input"]["text"],
                "options": [mapping[L] for L in sorted(mapping)] if mapping else [r["output"]["text"] for r in refs],
                "answer_key": key,
                "completion": text,
                "chosen": chosen if chosen in mapping else None,
                "correct": (chosen == key) if key is not None else None,
                "completion_logprob": comps[0].get("logprob") if comps else None,
                "finish_reason": (comps[0].get("finish_reason") or {}).get("reason") if comps else None,
                "num_train_instances": st.get("num_train_instances"),
                "prompt_truncated": st.get("prompt_truncated"),
                "method": spec.get("method"),
                "max_train_instances": spec.get("max_train_instances"),
                "temperature": spec.get("temperature"),
                "file": rel,
            })
    frame = pd.DataFrame.from_records(records)
    frame["correct"] = frame["correct"].astype("boolean")
    return frame


def _em_per_error() -> pd.DataFrame:
    rows = _read_csv(str(fetch_file(SOURCE, _EM_CSV)))
    frame = pd.DataFrame.from_records(list(rows))
    model_cols = [c for c in frame.columns if c.endswith("_correct")]
    frame[model_cols] = frame[model_cols].apply(pd.to_numeric, errors="raise")
    frame.insert(1, "subject", frame["Subject"].map(
        lambda s: "all" if s == "All" else s.strip().lower().replace(" ", "_")))
    long = frame.melt(id_vars=["Subject", "subject", "Condition"], value_vars=model_cols,
                      var_name="model", value_name="em")
    long["model"] = long["model"].str.removesuffix("_correct")
    long = long.rename(columns={"Subject": "subject_title", "Condition": "condition"})
    return long[["subject", "subject_title", "condition", "model", "em"]]


# ------------------------------------------------------------------------------------ entry


def load(*, part: str = "helm-labelled"):
    """Load a part of MMLU-Redux: expert labels, HELM response sets or the documented tables.

    Parameters
    ----------
    part : {"helm-labelled", "labels", "helm-full", "corruption", "helm-raw", "em-per-error"}
        What to return (default ``"helm-labelled"``):

        ``"labels"`` -> DataFrame, 5,700 rows (57 subjects x 100, subject then file order):
            ``item`` (``'mmlu-redux/<subject>/<row>'``), ``benchmark`` (``'mmlu-redux'``),
            ``source`` and ``subject`` (the MMLU subject), ``row``, ``text``, ``options`` (list of
            4 str), ``answer_index`` (0-3, the MMLU ground truth), ``answer_key`` (A-D),
            ``error_type`` (normalized, one of :data:`ERROR_TYPES`), ``error_type_raw`` (the
            annotator's spelling), ``correct_answer`` (the annotator's suggested answer, free
            text, often empty), ``annotation_source`` (the raw ``source`` column: a URL or note),
            ``potential_reason``, ``file``, ``file_encoding``, ``file_delimiter``, and
            ``mmlu_item`` (the id of the same question in :func:`benchkit.datasets.mmlu.load`:
            same subject and whitespace-normalized question and options, else a unique
            question-text match, else the same ASCII letters and digits; None if unmatched) with
            ``mmlu_match`` (how it matched, or why not). Measured: 5,692 exact, 5 by ASCII
            characters (U+FFFD or mis-decoded quotes in the annotator files), 3 unmatched.
        ``"helm-labelled"`` -> :class:`benchkit.ResponseSet`, 5,700 items x 14 models
            (:data:`HELM_LABELLED_MODELS`, one sample each): ``answer`` = the model's output
            letter, ``correct`` = answer == answer key; items are the ``"labels"`` table (so they
            carry ``error_type`` and ``source`` = subject).
        ``"helm-full"`` -> ResponseSet, the full MMLU test x 10 HELM models
            (:data:`HELM_FULL_MODELS`). The HELM files hold no gold column, so each row is joined
            to the ``mmlu`` source's test table by subject and whitespace-normalized question text
            and options (falling back to a unique question-text match). Items are the mmlu
            source's (ids ``'mmlu/<subject>/test/<row>'``, its ``answer_key``) plus ``helm_file``
            and ``helm_row``. ``rs.meta["join"]`` gives the join: HELM rows, joined, failed (each
            with file, row and reason), join rate, and the MMLU rows that have no HELM row and
            why; ``rs.report`` lists the dropped HELM rows. Measured: 14,015 HELM rows, 14,014
            joined (one question's text differs: "Step l" vs "Step 1"), 27 MMLU test rows are
            exact repeats of another row and have no HELM row of their own, plus the unjoined one.
        ``"corruption"`` -> DataFrame, 500 rows: the injected-error tests, 100 ARC-Easy items x 5
            corruptions (:data:`CORRUPTIONS`; row ``i`` of every file is the same source item):
            ``item`` (``'mmlu-redux-corruption/<code>/<row>'``), ``corruption``, ``error_type``,
            ``row``, ``text``, ``options`` (list; 3 for NCA, else 4), ``n_options``,
            ``answer_index`` (Int64; NA for no_correct_answer), ``answer_key``, ``subject``
            (None: the files say n/a), ``original_dataset``, and the per-corruption provenance
            columns ``llm_for_corruption``, ``original_question`` (BQC), ``added_correct_answer``
            (MCA), ``original_correct`` (NCA), ``original_groundtruth`` (WG, Int64), ``file``.
        ``"helm-raw"`` -> DataFrame, 200 rows: the two raw HELM scenario-state files
            (global_facts, 100 instances, for meta_llama-3-70b and openai_gpt-4-0613): ``model``,
            ``helm_model``, ``subject``, ``instance_id``, ``split``, ``request_index``, ``text``,
            ``options`` (in output-mapping order A-D), ``answer_key`` (letter of the reference
            tagged correct), ``completion`` (raw text), ``chosen`` (the letter, None if the output
            is not an option letter), ``correct`` (boolean), ``completion_logprob`` (0 in these
            files: they carry no option probabilities), ``finish_reason``,
            ``num_train_instances``, ``prompt_truncated``, ``method``, ``max_train_instances``,
            ``temperature``, ``file``.
        ``"em-per-error"`` -> DataFrame (long): the authors' exact-match table
            ``mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv``: ``subject`` (snake case,
            ``'all'`` for the pooled row), ``subject_title``, ``condition`` ("Overall", "OK",
            "Not OK"), ``model`` and ``em`` (fraction correct), for 10 of the 14 HELM models.

    Returns
    -------
    ResponseSet or pandas.DataFrame
        As listed above. ResponseSets carry provenance in ``meta`` (repository, commit, license,
        files, counts, the raw non-letter outputs per model, notes).

    Notes
    -----
    Source semantics reproduced: the answer key is MMLU's (``groundtruth_answer`` of all.csv,
    equal to ``answer`` of the annotator files); a response is correct when the model's output
    letter equals it, which is the exact-match score of the authors' table (``"em-per-error"``:
    the tests check per-subject agreement). Outputs that are not a letter A-D (empty cells,
    truncated words such as "To" or "The", "E") get the answer state
    :data:`benchkit.NO_ANSWER` and count as incorrect; their raw values are counted in
    ``meta["non_letter_outputs"]``.

    The annotator files vary: 9 are ``;``-delimited (detected from the header line), column
    order differs (read by name), and ``mmlu_moral_scenarios.csv`` is not UTF-8. SOURCE.md calls
    it latin-1, but its single non-ASCII byte 0xD5 sits in "my sister?s head", where MMLU has a
    right single quote: that is Mac OS Roman (0xD5 = U+2019), so non-UTF-8 files are decoded as
    ``mac_roman``. Error types are normalized by :func:`normalize_error_type` (27 raw spellings
    map to the 7 labels; the counts then equal all.csv's clean column, which the loader checks
    row by row, along with the question text and answer).
    """
    check_choice("part", part, PARTS)
    if part == "labels":
        return _labels()
    if part == "helm-labelled":
        return _helm_labelled()
    if part == "helm-full":
        return _helm_full()
    if part == "corruption":
        return _corruption()
    if part == "helm-raw":
        return _helm_raw()
    return _em_per_error()
