"""Item tables of MMLU, ARC-Challenge and CommonsenseQA, as staged by LLM-MCQ-Bias.

The source is the data folder of Zheng et al.'s "Large Language Models Are Not Robust Multiple Choice
Selectors" (ICLR 2024), repository ``chujiezheng/LLM-MCQ-Bias``: headerless hendrycks-style CSVs
``question,A,B,C,D[,E],answer_letter``. These are item tables (question, options, answer key), not
response sets: :func:`load` returns a documented items DataFrame usable as ``items=`` of a
:class:`benchkit.ResponseSet`.

Counts (measured on the pinned files and checked in the tests): MMLU test 57 subjects, 14,042 items,
dev 57 x 5 = 285; ARC-Challenge test 1,165 (4 options), dev 5; CommonsenseQA 1,216 (the CSQA
*validation* split, stored upstream in a folder named ``test``; 5 options), dev 5.
"""
from __future__ import annotations

import csv
import functools
import io

import pandas as pd

from benchkit._validation import BenchkitValueError, check_choice
from benchkit.datasets._fetch import Source, SourceFile, fetch_file

__all__ = ["SOURCE", "SUBJECTS", "PARTS", "SPLITS", "load", "item_id"]

_REPO = "chujiezheng/LLM-MCQ-Bias"
_COMMIT = "2ae2f40c77006f7a00a4675bdfb30151c2406691"

#: The 57 MMLU subjects, in the (alphabetical) order of the upstream file names.
SUBJECTS: tuple[str, ...] = (
    "abstract_algebra",
    "anatomy",
    "astronomy",
    "business_ethics",
    "clinical_knowledge",
    "college_biology",
    "college_chemistry",
    "college_computer_science",
    "college_mathematics",
    "college_medicine",
    "college_physics",
    "computer_security",
    "conceptual_physics",
    "econometrics",
    "electrical_engineering",
    "elementary_mathematics",
    "formal_logic",
    "global_facts",
    "high_school_biology",
    "high_school_chemistry",
    "high_school_computer_science",
    "high_school_european_history",
    "high_school_geography",
    "high_school_government_and_politics",
    "high_school_macroeconomics",
    "high_school_mathematics",
    "high_school_microeconomics",
    "high_school_physics",
    "high_school_psychology",
    "high_school_statistics",
    "high_school_us_history",
    "high_school_world_history",
    "human_aging",
    "human_sexuality",
    "international_law",
    "jurisprudence",
    "logical_fallacies",
    "machine_learning",
    "management",
    "marketing",
    "medical_genetics",
    "miscellaneous",
    "moral_disputes",
    "moral_scenarios",
    "nutrition",
    "philosophy",
    "prehistory",
    "professional_accounting",
    "professional_law",
    "professional_medicine",
    "professional_psychology",
    "public_relations",
    "security_studies",
    "sociology",
    "us_foreign_policy",
    "virology",
    "world_religions",
)

# (path in the mirror, sha256, size in bytes), computed from the mirror of the pinned commit. The files
# are unchanged copies (SOURCE.md), but the mirror drops the repository's leading "code/" folder: the
# upstream path, and so the raw-GitHub URL at the pinned commit, is "code/<path>".
_FILES: tuple[tuple[str, str, int], ...] = (
    ("data_arc/dev/arc_dev.csv", "7c06806ab77bfec12b5ed84b748d2321793de5cfcf25a20444df5165db2d022a", 1794),
    ("data_arc/test/arc_test.csv", "ad5fc281d9061465fd0218e3c894c9f877efef2be0873779d434b1884b6718c7", 299557),
    ("data_csqa/dev/csqa_dev.csv", "e67539ee26dc918aa239d0b9de37ee0547feac58e8bf446e99056c2b55e1b1b4", 568),
    ("data_csqa/test/csqa_test.csv", "1591d70a16bd6d3f7c987d4a23fae72c86d40069c159d83181203ae761839141", 150576),
    ("data_mmlu/dev/abstract_algebra_dev.csv", "bd8c73f3c75bea9db82d281d9da6949cea687b987dba24a142c638e758046624", 719),
    ("data_mmlu/dev/anatomy_dev.csv", "0985685cf5ab13ccc1629f03a1308a9add8767582ffeb195b68b18c3415c9993", 830),
    ("data_mmlu/dev/astronomy_dev.csv", "bb03eca519a3fbc04017dc4783635763ac928f0811ce6243dbcbf0d526dbe1e3", 1943),
    ("data_mmlu/dev/business_ethics_dev.csv", "7cd487e4ba7d9fe423bcc259ad852e963dc370629b8d61881b61ed0ae84c0b46", 2095),
    ("data_mmlu/dev/clinical_knowledge_dev.csv", "13c88c266cf2a8aa20a062e9b901ee372431e75669fa3c80865613fa2b7f61af", 1078),
    ("data_mmlu/dev/college_biology_dev.csv", "31f4ae0707ba3f742e0d5546ff970949be8a05e217921fe87b1814d6a0ab8184", 1403),
    ("data_mmlu/dev/college_chemistry_dev.csv", "9ba27ba571b8ad40d35a2a88a60acf434ca5f37962c2eba8f9d0aa89edb4c1c7", 1200),
    ("data_mmlu/dev/college_computer_science_dev.csv", "fc1a43187cd68390d663e0a1849688b13a4cd75ab17616558f4e584a4a8ae2bd", 2638),
    ("data_mmlu/dev/college_mathematics_dev.csv", "27731ee1402e720ee01ad6fa6a969a0d0978a0e9b4c385d328a61869a43f321f", 1366),
    ("data_mmlu/dev/college_medicine_dev.csv", "63928a944fda769d7e52a3a4549d4f37f094896e65e7db35029261e1ae79909b", 1545),
    ("data_mmlu/dev/college_physics_dev.csv", "6e043d6c566091c5ad1d8bc1d002900e1aa0bff114f98d5e3f2e4f645efce100", 1279),
    ("data_mmlu/dev/computer_security_dev.csv", "09e276300dbd2d07906dbe4ff82aabf45b9765f933eb7d0f35ea3ea97dee8020", 974),
    ("data_mmlu/dev/conceptual_physics_dev.csv", "5e65be1f6fdd82f4887e3747af790a747191b1b732dd2bea76306388d5ee3719", 799),
    ("data_mmlu/dev/econometrics_dev.csv", "7a01a925199c246decd0f1fc7a1b8dc28136b19d793e5b1e0d97142c118a2940", 1521),
    ("data_mmlu/dev/electrical_engineering_dev.csv", "5aad11b1d1c8dc1a431c3e79a047cba56d691a60403ddffaf5fbd45e9c82bc0d", 851),
    ("data_mmlu/dev/elementary_mathematics_dev.csv", "9aca9cd215b7c170020fd5f7db1c9c3d5cbf6df9ee7b970a4810649a87245011", 1315),
    ("data_mmlu/dev/formal_logic_dev.csv", "e4b579358ed4878f6c91bfea0ccc51efdd15a28401f86da9ee8f6c0af37cf36d", 1628),
    ("data_mmlu/dev/global_facts_dev.csv", "685577fc3f0bf09a3f5c741ef062d6328aec843069862b83b64eb3638466505f", 1111),
    ("data_mmlu/dev/high_school_biology_dev.csv", "6a200085c150794846d4bab43bb0e22ceec9f99576dfc25f5c5d8faa9595ae13", 1538),
    ("data_mmlu/dev/high_school_chemistry_dev.csv", "1ba44aeea98ca22342b6525a3a9ebb62003b2a8289fa42d7c844e2139557ec5b", 1091),
    ("data_mmlu/dev/high_school_computer_science_dev.csv", "2987495fdd50f5724676405887ae7a12d2b176cde2127a664b4d4ac117ed0649", 2808),
    ("data_mmlu/dev/high_school_european_history_dev.csv", "a3677065cf51abc32901cdcf88ed64121f5595e3a5a67f86ae2570f866fe87c5", 11445),
    ("data_mmlu/dev/high_school_geography_dev.csv", "e43fc27b9fa8b808773a2871007b39e012a1cc1ec902f85d85cc9c27cc12883d", 1268),
    ("data_mmlu/dev/high_school_government_and_politics_dev.csv", "daf013a3eae04b5904e6a706cf0574df2c881e00d46a979cb34c6e2968ad1c90", 1648),
    ("data_mmlu/dev/high_school_macroeconomics_dev.csv", "23ed995071c47e627c4e6adbce63a9144920441abb7e69f8b4dfac5fdc4e402d", 1191),
    ("data_mmlu/dev/high_school_mathematics_dev.csv", "d7401d5cbad5ae697bfa480e35d85de8ebf1232589a3c59b010782ee49cbe18c", 1168),
    ("data_mmlu/dev/high_school_microeconomics_dev.csv", "a409b422561f1fb02e6d1bc044657cfff7779b13146edfd937d2573423c2c49b", 1167),
    ("data_mmlu/dev/high_school_physics_dev.csv", "5f008c3a44e7b14d86f6c1cbde28892fd0d97ae424e8af9901d75c4ee03972cc", 1367),
    ("data_mmlu/dev/high_school_psychology_dev.csv", "b39b304a436fa6239a4bb8c1dc4ca3693edec2876926851f3d512d1da9e280ab", 1785),
    ("data_mmlu/dev/high_school_statistics_dev.csv", "9441f8da50bfb93158d9b2645909cf1bc5837e8078c0eab923cf0fe761f7754e", 2422),
    ("data_mmlu/dev/high_school_us_history_dev.csv", "028b3c81c7be1138ad50b4afa1835773788e4557426a40abfaf132b11edab541", 8758),
    ("data_mmlu/dev/high_school_world_history_dev.csv", "b6e87a14718b0415241dfe10dd86605de5b6e5995fa57580e9e2d7c56fe147a1", 4771),
    ("data_mmlu/dev/human_aging_dev.csv", "d2439fb3c2292e7dca8244cd98dd7ca746f8424347f171345f6b396f568b0870", 880),
    ("data_mmlu/dev/human_sexuality_dev.csv", "0da7f8f7aeb6d5a08f0413489aa5d5b84ff8ac971952ea66242762f779cb6794", 942),
    ("data_mmlu/dev/international_law_dev.csv", "6f7f1c0191c0bcfe195d0ed39942a605012967a04d855c6482dc7e7a9f95e4d8", 2293),
    ("data_mmlu/dev/jurisprudence_dev.csv", "27533d974102031088bc5c47fc008538ab3d08ca75e127fb64ff04cdd1562da2", 1172),
    ("data_mmlu/dev/logical_fallacies_dev.csv", "4de026c2d116c381dcc1b65e91a28ba3d124398f920b0f3904ec5b641deb28f4", 1444),
    ("data_mmlu/dev/machine_learning_dev.csv", "e4b1b09985dbdc499d51a2a2e83d93ae05bfe72ea7407c18e3aa3d2ab9ce7517", 2197),
    ("data_mmlu/dev/management_dev.csv", "f75224958ab245d86c335d6886f8689247a9f83691ad63bb7ef3196641be9e52", 761),
    ("data_mmlu/dev/marketing_dev.csv", "15b3cf450ebc11e122886a5bad41e78260228259fa184eaa4ba566bdf37f0315", 1354),
    ("data_mmlu/dev/medical_genetics_dev.csv", "70cd9ff940bef360693eeb4e05b5b8e53ad75a81d6b74a784222d4cae6dcb896", 952),
    ("data_mmlu/dev/miscellaneous_dev.csv", "72f74676c37fe477720d8b55e84517bd21daf1fe24f99dd33f1b0a636d31782e", 562),
    ("data_mmlu/dev/moral_disputes_dev.csv", "c80d35650189d23777fff1a4a53ff4387128c2536cbbd417d7e9103eeeb0d054", 1635),
    ("data_mmlu/dev/moral_scenarios_dev.csv", "dbe2196287f89a6c4be4f31a1897bf0d0f8612a5ab22451a856496df2e0c5100", 1974),
    ("data_mmlu/dev/nutrition_dev.csv", "84444f3a5c5bf3ccbe87f361b8dca56b9e0c5594fda2c4b558c66c37f47f5b24", 1971),
    ("data_mmlu/dev/philosophy_dev.csv", "587be220837bbe089702aa27cda03fbf72a7b959a9a4425e70d598026614cf11", 859),
    ("data_mmlu/dev/prehistory_dev.csv", "f62e146bc64a3335bafde9af63b43e4a863246da743cd49f6daf5d5e9614ff81", 1758),
    ("data_mmlu/dev/professional_accounting_dev.csv", "efc070ed71676829c67497542e3571f50a868036a17f93d00a56a4f85767ae0d", 2041),
    ("data_mmlu/dev/professional_law_dev.csv", "15d8589900ccf4725e1bad17837d48cc18c8bf033cd9b5d6bacf28a2a8f1064f", 6503),
    ("data_mmlu/dev/professional_medicine_dev.csv", "486456d578890d4700dd8044ac236c8ac2ee3389e35fc81ac37529f4f4487785", 3678),
    ("data_mmlu/dev/professional_psychology_dev.csv", "222e690db42dfb217a7c56a6ac693b73cf0168e344d75f28618c62ad9d2c0261", 2148),
    ("data_mmlu/dev/public_relations_dev.csv", "8895f665f4c696ae76d34210546d0ab4b21b79d2fd8534cd2e8002e8ed0969dc", 1363),
    ("data_mmlu/dev/security_studies_dev.csv", "c726278f37ce15489b22190771041bd459065016e3891148ef147ae7cf1a0c35", 5231),
    ("data_mmlu/dev/sociology_dev.csv", "2e2bb34b4cabdc50e2c43097d1cfe91560224f9e1224adc19a01e922d1c49414", 1484),
    ("data_mmlu/dev/us_foreign_policy_dev.csv", "3a9677a89fd67c3a891671a2a6a14ff69ab37bdd54fb687c2f8334c8a3fa1543", 1480),
    ("data_mmlu/dev/virology_dev.csv", "30af41f604f2ee7f5585361df6a7022b4eaf126eeb91494f225841908f06034a", 962),
    ("data_mmlu/dev/world_religions_dev.csv", "d4f7550bb8a32a599dc2ffa0a53e85e81096f441bcca1be3a412d690ade8eaa0", 540),
    ("data_mmlu/test/abstract_algebra_test.csv", "4be89c0fb1d2419722e88880f6da3da95750367185ecd36f6492a6f74785cf64", 17358),
    ("data_mmlu/test/anatomy_test.csv", "966dfd5c4579885ebdb8c05d6754ae5834f672632586d8595be3c0f9360e6f4e", 29844),
    ("data_mmlu/test/astronomy_test.csv", "87c9c3cb5a55395c70dd9ed521dd7d2629fd4ff236c5ab647102e007f52a9341", 42999),
    ("data_mmlu/test/business_ethics_test.csv", "cd3fc3a85a34cb17e6c5b2fb68ea61e7800b31120d92934019f1e17f4832fbd4", 31394),
    ("data_mmlu/test/clinical_knowledge_test.csv", "06a1ea973000d5ef5d2664c4ac1c68d0423f1cab6b3b682be7942633740811f1", 56562),
    ("data_mmlu/test/college_biology_test.csv", "e1204cb9d19887ea266145f038b5d4cc1fbc33d7efce186259c4ecca1cbe3119", 45351),
    ("data_mmlu/test/college_chemistry_test.csv", "4d61d7887f845b887c52ac928b6dffdcf2468d79f3d0fbb4d1731092a51d2552", 22314),
    ("data_mmlu/test/college_computer_science_test.csv", "d53a1d0d1c4362dacf92a4ff1d6a755beb5a87f24a7301c3c4391fcacc6530b4", 40401),
    ("data_mmlu/test/college_mathematics_test.csv", "8b5bef14d4209c7918eaf947e4f12a5ae9470567722d8ba9761302d733e8ac71", 22429),
    ("data_mmlu/test/college_medicine_test.csv", "9c533cfff89edaa317b2e79bbabcdd5e2e522e019679cb4a6475e5f2a1861b1e", 78334),
    ("data_mmlu/test/college_physics_test.csv", "079c3696eda22c13b0472de245c7bb4918315b59481964109a4f65d2a35b4243", 27811),
    ("data_mmlu/test/computer_security_test.csv", "8e40f809858db9dd8585036b53984e570b6101f72be2214b85e979c7fafa307f", 24840),
    ("data_mmlu/test/conceptual_physics_test.csv", "7b39a241bb20424fd2a4e0e37ce05d94865ffc44191d8be4063be0e973312256", 34992),
    ("data_mmlu/test/econometrics_test.csv", "10eb6b2d3a519a463872ef75902991b51ebf45865b29888e86d40228ace24029", 44039),
    ("data_mmlu/test/electrical_engineering_test.csv", "8b0d747a97cb2cbbd8926c8deb2cda6073da6d5d3cc099693aa7761be938f5e4", 21595),
    ("data_mmlu/test/elementary_mathematics_test.csv", "65a46a0e1927ea37aabd031ddcb6d81eef70a7eee1e9e0af94ec8e3fa21d728b", 61602),
    ("data_mmlu/test/formal_logic_test.csv", "bc2dc7373a664ae72e166dcbe3f7aaf1bb65b99f106f1831f335c53467f35248", 46929),
    ("data_mmlu/test/global_facts_test.csv", "a81058ee8e2385edaf42b8847ec9db01221fa4b16d262db415f3370884745ff9", 16191),
    ("data_mmlu/test/high_school_biology_test.csv", "cfaba2b58b9714d2a6983a90bce17f14cc44cfc8195b20f8f65fef70d21331b9", 102424),
    ("data_mmlu/test/high_school_chemistry_test.csv", "0e3d94da331d1eb3cafecd64a6f0f64e6fd2410b0a76676b2c0728dc5c1374f5", 53918),
    ("data_mmlu/test/high_school_computer_science_test.csv", "0fb27028617efae6572e6cb840929b95e913c6dc40923cebf1f4e630bf61960d", 42305),
    ("data_mmlu/test/high_school_european_history_test.csv", "09983655452c3c40ba466050ec82252f02a235e5946734f4d73b73688fc9509b", 266888),
    ("data_mmlu/test/high_school_geography_test.csv", "c6acdaa9d94c88cdefb9dd569e376733d9ba670c07db12cdff36ccdc18c2ab0c", 37386),
    ("data_mmlu/test/high_school_government_and_politics_test.csv", "fbd7a89eb2c7806097e18b40950e44e0580e6f97cd151f01a216bb575c2d7903", 61553),
    ("data_mmlu/test/high_school_macroeconomics_test.csv", "354b12cc74d2806c44d1fea42efba04ec12f10233e5169466080a1d1a6f8bba5", 108402),
    ("data_mmlu/test/high_school_mathematics_test.csv", "fe8f7a154834bba30947401ba37ea6c7afdcfba82ddc341c79b5d3016991d290", 48584),
    ("data_mmlu/test/high_school_microeconomics_test.csv", "a250cc4976654e479cecdb7b66046ce2412df3e5e1b9c3d145ed344eae9a2256", 70131),
    ("data_mmlu/test/high_school_physics_test.csv", "573e0f8d8309e4669f53a4b13248a908507b6d5d4c97c977f7bb9814658fee54", 56252),
    ("data_mmlu/test/high_school_psychology_test.csv", "88c33b6b0ade567d07b8b5b074effdb52f31d773541fd71e86cb0d85a8daf7bf", 146542),
    ("data_mmlu/test/high_school_statistics_test.csv", "d62843d2fd084d6af1c8a0a6491d0aa642c34a7a68476605b9b3db5841e63d3f", 105978),
    ("data_mmlu/test/high_school_us_history_test.csv", "0338dea3b11881be53c2208ae8dbb571c792c0dca6f0b36a352147c0be81625e", 292834),
    ("data_mmlu/test/high_school_world_history_test.csv", "7787343ae18e4e1ef833c8630c0c914c62f42c2f35d8b90f4bec2eecccfc161e", 373770),
    ("data_mmlu/test/human_aging_test.csv", "01299d7e0ae4a8d082daeecc140445ce7393b464040bd810b0a60a370ae5502e", 40617),
    ("data_mmlu/test/human_sexuality_test.csv", "43ca779587725f126d07733b33ba339ce27cca6f85056872eccf4b0377e28a90", 29052),
    ("data_mmlu/test/international_law_test.csv", "51b3a6d74cc84651b2355d2823c30d993015ddfe8ef39725da4e0442f29489fc", 50691),
    ("data_mmlu/test/jurisprudence_test.csv", "bf7a770aebfbdb181abc2c26ffd7a01ab31f93c7e2dfe6924c57c7bca4a0dff6", 31375),
    ("data_mmlu/test/logical_fallacies_test.csv", "3fe8b48c74832525556455d49960cc0c3cff37496783348043ff69a1863c2244", 46290),
    ("data_mmlu/test/machine_learning_test.csv", "05984b90f887a7da12b3dd8e41e6c34fa856b2c939ea3124975d90910ceb2af0", 31698),
    ("data_mmlu/test/management_test.csv", "4a535a11bb480a09a302e86d157ae2d33e054cfa00e4265fe300a9408b87ec6b", 17457),
    ("data_mmlu/test/marketing_test.csv", "ecf0ae0ae906194d033ca7d7746eaf201232eccb78ee24147e737473f751233d", 57435),
    ("data_mmlu/test/medical_genetics_test.csv", "cc30c698e94f12c00e610a39c62d1a1d9587fa53c005359317346081f722c5e6", 18520),
    ("data_mmlu/test/miscellaneous_test.csv", "061b283bb264072321d848b3b7f409a932a11ffa023fc94898dd31d2a4c80c7e", 129221),
    ("data_mmlu/test/moral_disputes_test.csv", "673f5e9054f55fc5e165a3ed01e1b13eb1ee5a3405055818b50532e05de9bfdd", 99902),
    ("data_mmlu/test/moral_scenarios_test.csv", "128d7bd823d793f8b7faf28f98f4b3c737b3e84d4b42c06c13458d36075a423a", 361484),
    ("data_mmlu/test/nutrition_test.csv", "309432be237ac2b659acd10fdd4347d32cdc60aa9daeafbac78486a8744fa0b6", 85926),
    ("data_mmlu/test/philosophy_test.csv", "a0f0c6fc9e4f08c04ff3a339996c4ed688a9fbe75d205fff4b9d3549fb49fa1e", 72820),
    ("data_mmlu/test/prehistory_test.csv", "8d44938332ea3d199cfa51a18ef69af972aa33ca4af7b5f5bc62e768a31f949a", 82193),
    ("data_mmlu/test/professional_accounting_test.csv", "27071efa2f8fd8502d01e80b8d7c69439586019f59e416ce039968417ef41355", 118484),
    ("data_mmlu/test/professional_law_test.csv", "eeb81cac576a5f537485b6befd25837b55f64b57e9b2a7e409210d7c8d608820", 1867637),
    ("data_mmlu/test/professional_medicine_test.csv", "a034bf0dda10cb0848bdd3097eb1547d61ca2dac9e9b871563691621c38d51e9", 211585),
    ("data_mmlu/test/professional_psychology_test.csv", "99785591dfe18717736c0c296c9d9840c832f98749060975f7e2d976ad204bf7", 212333),
    ("data_mmlu/test/public_relations_test.csv", "3712f955d0c38b073b188a175a8d9a6ce64601f0ae9c98d8cfc37461c4cb5933", 26236),
    ("data_mmlu/test/security_studies_test.csv", "ab7634702670ee0d5e98b852f5bcfad2821ff9a2e909d223de05422c948f6638", 199745),
    ("data_mmlu/test/sociology_test.csv", "f6c464600032aa2bb53294ad53217fbb650601eee206af947b3ce4c587ff5bed", 61540),
    ("data_mmlu/test/us_foreign_policy_test.csv", "2821ee009a2b1b7d4adc5a212a0bad7fe05d377455de0fe0841beab8f00142e1", 26047),
    ("data_mmlu/test/virology_test.csv", "4355b9d79142da0e44a767a495a277733fd89ad67236cbbe3f42ff3a6d46b483", 34689),
    ("data_mmlu/test/world_religions_test.csv", "3be96b2465419289c4fe0c8a0d003003facd243c8982c6daafc6ac90a40bd507", 21156),
)

SOURCE = Source(
    name="mmlu",
    repo=_REPO,
    commit=_COMMIT,
    license=(
        "no LICENSE file in the repository; underlying data: MMLU (MIT), ARC (CC BY-SA 4.0), "
        "CommonsenseQA (MIT)"
    ),
    files=tuple(
        SourceFile(path, sha, size, url=f"https://raw.githubusercontent.com/{_REPO}/{_COMMIT}/code/{path}")
        for path, sha, size in _FILES
    ),
    description=(
        "Item tables (question, options, answer letter): MMLU test (57 subjects, 14,042 items) and "
        "dev (285), ARC-Challenge test (1,165, 4 options), CommonsenseQA validation (1,216, 5 options)"
    ),
)

#: Accepted values of ``part`` and ``split``.
PARTS: tuple[str, ...] = ("mmlu", "arc-challenge", "commonsenseqa", "all")
SPLITS: tuple[str, ...] = ("test", "dev", "all")

_LETTERS = "ABCDEFGHIJ"
# part -> (folder, file name pattern for a split, number of options, single-file source label)
_PART_LAYOUT = {
    "arc-challenge": ("data_arc", "arc_{split}.csv", 4),
    "commonsenseqa": ("data_csqa", "csqa_{split}.csv", 5),
}


def item_id(part: str, split: str, row: int, subject: str | None = None) -> str:
    """The stable item id of row ``row`` (0-based, file order) of a part and split.

    ``'mmlu/<subject>/<split>/<row>'`` for MMLU, ``'arc-challenge/<split>/<row>'`` and
    ``'commonsenseqa/<split>/<row>'`` otherwise. The row index equals the ``idx`` of the
    LLM-MCQ-Bias result files, so those results join on it.
    """
    if part == "mmlu":
        return f"mmlu/{subject}/{split}/{row}"
    return f"{part}/{split}/{row}"


@functools.lru_cache(maxsize=256)
def _parse_csv(local_path: str, n_options: int) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """Rows (question, options, answer letter) of one headerless CSV, checked for shape."""
    with open(local_path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    rows = []
    allowed = tuple(_LETTERS[:n_options])  # a tuple: "" would be a substring of a str
    for i, rec in enumerate(csv.reader(io.StringIO(text, newline=""))):
        if len(rec) != n_options + 2:
            raise BenchkitValueError(
                f"{local_path}: row {i} has {len(rec)} fields; expected {n_options + 2} "
                f"(question, {n_options} options, answer letter)"
            )
        answer = rec[-1].strip()
        if answer not in allowed:
            raise BenchkitValueError(
                f"{local_path}: row {i} has answer {answer!r}; expected one of {', '.join(allowed)}"
            )
        rows.append((rec[0], tuple(rec[1:-1]), answer))
    return tuple(rows)


def _frame(part: str, split: str, subject: str | None, path: str, n_options: int) -> pd.DataFrame:
    local = fetch_file(SOURCE, path)
    rows = _parse_csv(str(local), n_options)
    return pd.DataFrame(
        {
            "item": [item_id(part, split, i, subject) for i in range(len(rows))],
            "benchmark": part,
            "source": subject if subject is not None else part,
            "split": split,
            "row": range(len(rows)),
            "text": [r[0] for r in rows],
            "options": [list(r[1]) for r in rows],
            "answer_key": [r[2] for r in rows],
            "answer_index": [_LETTERS.index(r[2]) for r in rows],
            "n_options": n_options,
            "file": path,
        }
    )


def load(*, part: str = "mmlu", split: str = "test", subjects=None) -> pd.DataFrame:
    """Load an item table: question text, options and answer letter, one row per item.

    Parameters
    ----------
    part : {"mmlu", "arc-challenge", "commonsenseqa", "all"}, default "mmlu"
        Which benchmark: the 57-subject MMLU (``data_mmlu``), ARC-Challenge (``data_arc``, the
        1,165 test items with exactly 4 options), CommonsenseQA (``data_csqa``: the 1,216-item
        CSQA *validation* split, which the upstream repository stores as ``test``) or all three.
    split : {"test", "dev", "all"}, default "test"
        The upstream folder: ``test`` (the evaluation items) or ``dev`` (the 5 few-shot examples
        per MMLU subject, 5 for ARC, 5 for CSQA).
    subjects : str or sequence of str, optional
        MMLU subjects to keep (names as in :data:`SUBJECTS`); default all 57. Only for MMLU.

    Returns
    -------
    pandas.DataFrame
        One row per item, in file order (MMLU subjects alphabetical, then row), with a default
        RangeIndex and the columns

        - ``item`` (str): stable id, ``'mmlu/<subject>/<split>/<row>'``,
          ``'arc-challenge/<split>/<row>'`` or ``'commonsenseqa/<split>/<row>'``
          (see :func:`item_id`);
        - ``benchmark`` (str): ``'mmlu'``, ``'arc-challenge'`` or ``'commonsenseqa'``;
        - ``source`` (str): the MMLU subject (e.g. ``'abstract_algebra'``); for ARC and CSQA the
          benchmark name (they have no subjects);
        - ``split`` (str), ``row`` (int, 0-based row in the CSV);
        - ``text`` (str): the question, unchanged;
        - ``options`` (list of str): the 4 (MMLU, ARC) or 5 (CSQA) options, in order A, B, ...;
        - ``answer_key`` (str): the correct letter; ``answer_index`` (int, 0-based);
        - ``n_options`` (int); ``file`` (str): the file inside the source it came from.

        The frame can be passed as ``items=`` to :meth:`benchkit.ResponseSet.from_long`.

    Notes
    -----
    The CSVs are read with the :mod:`csv` module (RFC 4180 quoting) as UTF-8; every row must have
    the question, exactly the expected number of options and an answer letter among them,
    otherwise a :class:`~benchkit._validation.BenchkitValueError` names the file and row. Text is
    not normalized. Duplicate questions are kept: MMLU test holds 27 rows whose question and
    options repeat an earlier row of the same subject (HELM evaluates one copy of each, see
    :func:`benchkit.datasets.mmlu_redux.load`).
    """
    check_choice("part", part, PARTS)
    check_choice("split", split, SPLITS)
    parts = ["mmlu", "arc-challenge", "commonsenseqa"] if part == "all" else [part]
    splits = ["test", "dev"] if split == "all" else [split]
    if subjects is not None:
        if part not in ("mmlu", "all"):
            raise BenchkitValueError(
                f"subjects={subjects!r} only applies to part='mmlu'; part={part!r} has no subjects"
            )
        subjects = [subjects] if isinstance(subjects, str) else list(subjects)
        for s in subjects:
            check_choice("subjects", s, SUBJECTS)
    frames = []
    for p in parts:
        for sp in splits:
            if p == "mmlu":
                for subject in SUBJECTS if subjects is None else [s for s in SUBJECTS if s in subjects]:
                    frames.append(_frame(p, sp, subject, f"data_mmlu/{sp}/{subject}_{sp}.csv", 4))
            else:
                folder, pattern, k = _PART_LAYOUT[p]
                frames.append(_frame(p, sp, None, f"{folder}/{sp}/{pattern.format(split=sp)}", k))
    return pd.concat(frames, ignore_index=True)
