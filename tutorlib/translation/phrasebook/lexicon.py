"""The phrasebook's word tables: nouns, adjectives, verbs, pronouns, determiners, times, phrases.

Each English word with its Portuguese forms and what it may meet: a noun's
gender, plural and class (person, animal, food, ...), an adjective's copula
(ser or estar) and the classes it describes, a verb's conjugations and the
subjects and objects it takes. ``tutorlib.translation.phrasebook.grammar``
writes sentences from them; ``...phrasebook.drawing`` draws the sentences.
No torch.

Derived in chapter 9 (Training a translator).
"""

from __future__ import annotations

from typing import NamedTuple

# --- the lexicon -----------------------------------------------------------------------------
#
# Nouns fall into classes, and each verb and adjective says which classes it
# takes, so that the grammar writes "the dog eats the apple" but never "the
# dog reads the girl" and never gives a colour to a person.

PERSON, ANIMAL, FOOD, DRINK, THING, PAPER, PLACE = (
    "person",
    "animal",
    "food",
    "drink",
    "thing",
    "paper",
    "place",
)
ALL = frozenset({PERSON, ANIMAL, FOOD, DRINK, THING, PAPER, PLACE})
ANIMATE = frozenset({PERSON, ANIMAL})
OBJECTS = frozenset({FOOD, DRINK, THING, PAPER})  # what can be carried, bought, lost
NOT_PERSON = ALL - {PERSON}


class Noun(NamedTuple):
    en: str
    en_pl: str | None  # None: a mass noun ("water"), never plural nor with "a"
    pt: str
    pt_pl: str | None
    gender: str  # "m" or "f", of the Portuguese noun
    cls: str
    possessive: bool = True  # False: never "my"/"your" ("minha mulher" would say "my wife")
    en_in: str = (
        "in"  # the English preposition of place: "in the park", "at the beach", "on the island"
    )


def _noun(en, pt, gender, cls, en_pl=None, pt_pl=None, possessive=True, en_in="in") -> Noun:
    return Noun(en, en_pl or en + "s", pt, pt_pl or pt + "s", gender, cls, possessive, en_in)


def _mass(en, pt, gender, cls) -> Noun:
    return Noun(en, None, pt, None, gender, cls)


NOUNS = [
    # the core lexicon of the first course
    _noun("cat", "gato", "m", ANIMAL),
    _noun("dog", "cachorro", "m", ANIMAL),
    _noun("house", "casa", "f", PLACE),
    _noun("car", "carro", "m", THING),
    _noun("book", "livro", "m", PAPER),
    _noun("apple", "maçã", "f", FOOD),
    _noun("girl", "menina", "f", PERSON),
    _noun("boy", "menino", "m", PERSON),
    _noun("table", "mesa", "f", THING),
    # people
    _noun("man", "homem", "m", PERSON, en_pl="men", pt_pl="homens", possessive=False),
    _noun("woman", "mulher", "f", PERSON, en_pl="women", pt_pl="mulheres", possessive=False),
    _noun("friend", "amigo", "m", PERSON),
    _noun("teacher", "professor", "m", PERSON, pt_pl="professores"),
    _noun("mother", "mãe", "f", PERSON),
    _noun("father", "pai", "m", PERSON),
    _noun("brother", "irmão", "m", PERSON),
    _noun("sister", "irmã", "f", PERSON),
    _noun("son", "filho", "m", PERSON),
    _noun("daughter", "filha", "f", PERSON),
    _noun("baby", "bebê", "m", PERSON, en_pl="babies"),
    _noun("child", "criança", "f", PERSON, en_pl="children"),
    _noun("doctor", "médico", "m", PERSON),
    _noun("student", "aluno", "m", PERSON),
    _noun("neighbor", "vizinho", "m", PERSON),
    _noun("king", "rei", "m", PERSON, possessive=False),
    _noun("queen", "rainha", "f", PERSON, possessive=False),
    _noun("nurse", "enfermeira", "f", PERSON),
    _noun("farmer", "fazendeiro", "m", PERSON),
    # animals
    _noun("bird", "pássaro", "m", ANIMAL),
    _noun("horse", "cavalo", "m", ANIMAL),
    _noun("cow", "vaca", "f", ANIMAL),
    _noun("goat", "cabra", "f", ANIMAL),
    _noun("mouse", "rato", "m", ANIMAL, en_pl="mice"),
    _noun("rabbit", "coelho", "m", ANIMAL),
    _noun("pig", "porco", "m", ANIMAL),
    _noun("duck", "pato", "m", ANIMAL),
    _noun("turtle", "tartaruga", "f", ANIMAL),
    _noun("chicken", "galinha", "f", ANIMAL),
    _noun("lion", "leão", "m", ANIMAL, pt_pl="leões"),
    _noun("bear", "urso", "m", ANIMAL),
    _noun("monkey", "macaco", "m", ANIMAL),
    _noun("snake", "cobra", "f", ANIMAL),
    _noun("frog", "sapo", "m", ANIMAL),
    _noun("elephant", "elefante", "m", ANIMAL),
    _noun("tiger", "tigre", "m", ANIMAL),
    _noun("spider", "aranha", "f", ANIMAL),
    _noun("bee", "abelha", "f", ANIMAL),
    _noun("butterfly", "borboleta", "f", ANIMAL, en_pl="butterflies"),
    _noun("fox", "raposa", "f", ANIMAL, en_pl="foxes"),
    _noun("wolf", "lobo", "m", ANIMAL, en_pl="wolves"),
    # food
    _noun("cake", "bolo", "m", FOOD),
    _noun("orange", "laranja", "f", FOOD),
    _noun("banana", "banana", "f", FOOD),
    _noun("egg", "ovo", "m", FOOD),
    _noun("potato", "batata", "f", FOOD, en_pl="potatoes"),
    _noun("tomato", "tomate", "m", FOOD, en_pl="tomatoes"),
    _noun("carrot", "cenoura", "f", FOOD),
    _noun("lemon", "limão", "m", FOOD, pt_pl="limões"),
    _noun("pear", "pera", "f", FOOD),
    _noun("grape", "uva", "f", FOOD),
    _noun("cookie", "biscoito", "m", FOOD),
    _noun("sandwich", "sanduíche", "m", FOOD, en_pl="sandwiches"),
    _noun("pizza", "pizza", "f", FOOD),
    _noun("pie", "torta", "f", FOOD),
    _noun("strawberry", "morango", "m", FOOD, en_pl="strawberries"),
    _noun("onion", "cebola", "f", FOOD),
    _mass("bread", "pão", "m", FOOD),
    _mass("cheese", "queijo", "m", FOOD),
    _mass("rice", "arroz", "m", FOOD),
    _mass("meat", "carne", "f", FOOD),
    _mass("soup", "sopa", "f", FOOD),
    # drinks
    _mass("water", "água", "f", DRINK),
    _mass("milk", "leite", "m", DRINK),
    _mass("coffee", "café", "m", DRINK),
    _mass("tea", "chá", "m", DRINK),
    _mass("juice", "suco", "m", DRINK),
    _mass("wine", "vinho", "m", DRINK),
    # things
    _noun("chair", "cadeira", "f", THING),
    _noun("door", "porta", "f", THING),
    _noun("window", "janela", "f", THING),
    _noun("tree", "árvore", "f", THING),
    _noun("flower", "flor", "f", THING, pt_pl="flores"),
    _noun("ball", "bola", "f", THING),
    _noun("shirt", "camisa", "f", THING),
    _noun("hat", "chapéu", "m", THING),
    _noun("key", "chave", "f", THING),
    _noun("box", "caixa", "f", THING, en_pl="boxes"),
    _noun("boat", "barco", "m", THING),
    _noun("train", "trem", "m", THING, pt_pl="trens"),
    _noun("bed", "cama", "f", THING),
    _noun("lamp", "lâmpada", "f", THING),
    _noun("cup", "xícara", "f", THING),
    _noun("glass", "copo", "m", THING, en_pl="glasses"),
    _noun("plate", "prato", "m", THING),
    _noun("bottle", "garrafa", "f", THING),
    _noun("bag", "bolsa", "f", THING),
    _noun("phone", "telefone", "m", THING),
    _noun("computer", "computador", "m", THING, pt_pl="computadores"),
    _noun("pen", "caneta", "f", THING),
    _noun("pencil", "lápis", "m", THING, pt_pl="lápis"),
    _noun("clock", "relógio", "m", THING),
    _noun("bicycle", "bicicleta", "f", THING),
    _noun("bus", "ônibus", "m", THING, en_pl="buses", pt_pl="ônibus"),
    _noun("plane", "avião", "m", THING, pt_pl="aviões"),
    _noun("truck", "caminhão", "m", THING, pt_pl="caminhões"),
    _noun("shoe", "sapato", "m", THING),
    _noun("dress", "vestido", "m", THING, en_pl="dresses"),
    _noun("coat", "casaco", "m", THING),
    _noun("ring", "anel", "m", THING, pt_pl="anéis"),
    _noun("picture", "quadro", "m", THING),
    _noun("mirror", "espelho", "m", THING),
    _noun("umbrella", "guarda-chuva", "m", THING),
    _noun("knife", "faca", "f", THING, en_pl="knives"),
    _noun("spoon", "colher", "f", THING, pt_pl="colheres"),
    _noun("fork", "garfo", "m", THING),
    _noun("toy", "brinquedo", "m", THING),
    _noun("sofa", "sofá", "m", THING),
    _noun("guitar", "violão", "m", THING, pt_pl="violões"),
    _noun("wallet", "carteira", "f", THING),
    # paper
    _noun("letter", "carta", "f", PAPER),
    _noun("newspaper", "jornal", "m", PAPER, pt_pl="jornais"),
    _noun("magazine", "revista", "f", PAPER),
    _noun("map", "mapa", "m", PAPER),
    _noun("story", "história", "f", PAPER, en_pl="stories"),
    _noun("poem", "poema", "m", PAPER),
    _noun("notebook", "caderno", "m", PAPER),
    _noun("card", "cartão", "m", PAPER, pt_pl="cartões"),
    _noun("photo", "foto", "f", PAPER),
    # places
    _noun("school", "escola", "f", PLACE),
    _noun("park", "parque", "m", PLACE),
    _noun("city", "cidade", "f", PLACE, en_pl="cities"),
    _noun("beach", "praia", "f", PLACE, en_pl="beaches", en_in="at"),
    _noun("market", "mercado", "m", PLACE),
    _noun("church", "igreja", "f", PLACE, en_pl="churches"),
    _noun("hospital", "hospital", "m", PLACE, pt_pl="hospitais"),
    _noun("library", "biblioteca", "f", PLACE, en_pl="libraries"),
    _noun("store", "loja", "f", PLACE),
    _noun("restaurant", "restaurante", "m", PLACE),
    _noun("office", "escritório", "m", PLACE),
    _noun("bank", "banco", "m", PLACE),
    _noun("station", "estação", "f", PLACE, pt_pl="estações", en_in="at"),
    _noun("garden", "jardim", "m", PLACE, pt_pl="jardins"),
    _noun("farm", "fazenda", "f", PLACE, en_in="on"),
    _noun("street", "rua", "f", PLACE),
    _noun("museum", "museu", "m", PLACE),
    _noun("hotel", "hotel", "m", PLACE, pt_pl="hotéis"),
    _noun("airport", "aeroporto", "m", PLACE, en_in="at"),
    _noun("kitchen", "cozinha", "f", PLACE),
    _noun("room", "quarto", "m", PLACE),
    _noun("country", "país", "m", PLACE, en_pl="countries", pt_pl="países"),
    _noun("forest", "floresta", "f", PLACE),
    _noun("island", "ilha", "f", PLACE, en_in="on"),
    _noun("village", "aldeia", "f", PLACE),
    _noun("zoo", "zoológico", "m", PLACE),
    _noun("castle", "castelo", "m", PLACE),
]
NOUN = {n.en: n for n in NOUNS}
# things an animal or a thing can be in, besides places: "the cat is in the box"
CONTAINERS = frozenset({"car", "box", "bag", "boat", "train", "bus", "plane", "truck", "bed"})


class Adjective(NamedTuple):
    en: str
    pt: tuple  # (masculine singular, feminine singular, masculine plural, feminine plural)
    copula: str  # "ser" (what something is) or "estar" (the state it is in)
    classes: frozenset  # noun classes it describes
    extra: frozenset = frozenset()  # single nouns outside those classes that it also describes
    attributive: bool = (
        True  # False: only after "be" ("ready": "the car is ready", never "the ready car")
    )

    def takes(self, noun: Noun) -> bool:
        return noun.cls in self.classes or noun.en in self.extra

    def form(self, gender: str, plural: bool) -> str:
        return self.pt[(gender == "f") + 2 * plural]

    @property
    def invariable(self) -> bool:
        """The same for both genders ("feliz", "triste"): safe for a name, whose gender is
        unknown."""
        return self.pt[0] == self.pt[1]


def _adj(en, pt, copula, classes, extra=(), attributive=True, pt_pl=None, forms=None) -> Adjective:
    """``pt`` is the masculine singular; -o adjectives inflect -a/-os/-as, the others only take a
    plural."""
    if forms:
        forms = tuple(forms.split())
    elif pt.endswith("o"):
        forms = (pt, pt[:-1] + "a", pt + "s", pt[:-1] + "as")
    else:
        plural = pt_pl or pt + "s"
        forms = (pt, pt, plural, plural)
    return Adjective(en, forms, copula, frozenset(classes), frozenset(extra), attributive)


_COLOURED = {FOOD, THING, PAPER}
_BREAKABLE = {
    "car",
    "table",
    "chair",
    "door",
    "window",
    "ball",
    "key",
    "box",
    "boat",
    "train",
    "bed",
    "lamp",
    "cup",
    "glass",
    "plate",
    "bottle",
    "phone",
    "computer",
    "pen",
    "pencil",
    "clock",
    "bicycle",
    "bus",
    "plane",
    "truck",
    "mirror",
    "umbrella",
    "toy",
    "guitar",
    "sofa",
}
_OPENABLE = {
    "door",
    "window",
    "box",
    "bag",
    "bottle",
    "book",
    "letter",
    "notebook",
    "store",
    "bank",
    "museum",
    "school",
    "library",
    "restaurant",
    "market",
    "umbrella",
    "wallet",
}

ADJECTIVES = [
    # ser: what something is
    _adj("happy", "feliz", "ser", ANIMATE, pt_pl="felizes"),
    _adj("big", "grande", "ser", ALL - {DRINK}),
    _adj("small", "pequeno", "ser", ALL - {DRINK}),
    _adj(
        "new",
        "novo",
        "ser",
        {THING, PAPER, PLACE},
        extra={"friend", "teacher", "neighbor", "student", "doctor"},
    ),
    _adj("old", "velho", "ser", ALL - {DRINK, FOOD}),
    _adj("red", "vermelho", "ser", _COLOURED, extra={"bird"}),
    _adj("black", "preto", "ser", {ANIMAL, THING, PAPER}, extra={"grape"}),
    _adj(
        "tall", "alto", "ser", ANIMATE, extra={"house", "tree", "door", "table", "chair", "castle"}
    ),
    _adj(
        "white",
        "branco",
        "ser",
        {ANIMAL, THING, PAPER, PLACE},
        extra={"bread", "cheese", "rice", "wine"},
    ),
    _adj("green", "verde", "ser", _COLOURED, extra={"bird", "frog", "snake"}),
    _adj("blue", "azul", "ser", {THING, PAPER}, extra={"bird", "house"}, pt_pl="azuis"),
    _adj("yellow", "amarelo", "ser", _COLOURED, extra={"bird", "house"}),
    _adj("brown", "marrom", "ser", {ANIMAL, THING}, pt_pl="marrons"),
    _adj(
        "pink", "rosa", "ser", {THING, PAPER}, extra={"pig", "flower"}, forms="rosa rosa rosa rosa"
    ),
    _adj(
        "gray",
        "cinza",
        "ser",
        {THING},
        extra={"cat", "mouse", "elephant", "wolf"},
        forms="cinza cinza cinza cinza",
    ),
    _adj("beautiful", "bonito", "ser", ALL - {DRINK}),
    _adj("ugly", "feio", "ser", ALL - {DRINK, FOOD}),
    _adj("young", "jovem", "ser", ANIMATE, pt_pl="jovens"),
    _adj("strong", "forte", "ser", ANIMATE, extra={"coffee", "tea"}),
    _adj("weak", "fraco", "ser", ANIMATE, extra={"coffee", "tea"}),
    _adj(
        "fast",
        "rápido",
        "ser",
        {ANIMAL},
        extra={"car", "train", "boat", "bus", "plane", "truck", "bicycle"},
    ),
    _adj(
        "slow", "lento", "ser", {ANIMAL}, extra={"car", "train", "boat", "bus", "truck", "computer"}
    ),
    _adj("cheap", "barato", "ser", OBJECTS | {ANIMAL, PLACE}),
    _adj("expensive", "caro", "ser", OBJECTS | {ANIMAL, PLACE}),
    _adj("good", "bom", "ser", ALL, forms="bom boa bons boas"),
    _adj("bad", "ruim", "ser", ALL - {PERSON}, pt_pl="ruins"),
    _adj("rich", "rico", "ser", {PERSON}, extra={"city", "country"}),
    _adj("poor", "pobre", "ser", {PERSON}, extra={"city", "country", "village"}),
    _adj("smart", "inteligente", "ser", ANIMATE),
    _adj("funny", "engraçado", "ser", ANIMATE, extra={"story", "poem", "hat", "photo"}),
    _adj("kind", "gentil", "ser", {PERSON}, pt_pl="gentis"),
    _adj("famous", "famoso", "ser", {PERSON, PLACE}, extra={"book", "poem", "horse", "photo"}),
    _adj("heavy", "pesado", "ser", {THING, ANIMAL}, extra={"book"}),
    _adj("long", "longo", "ser", {PAPER}, extra={"train", "street", "river", "dress", "snake"}),
    _adj("sweet", "doce", "ser", {FOOD}, extra={"tea", "coffee", "juice", "wine"}),
    _adj("delicious", "delicioso", "ser", {FOOD, DRINK}),
    _adj("important", "importante", "ser", {PERSON, PAPER}),
    _adj("easy", "fácil", "ser", {PAPER}, pt_pl="fáceis"),
    _adj("difficult", "difícil", "ser", {PAPER}, pt_pl="difíceis"),
    _adj("interesting", "interessante", "ser", {PERSON, PAPER, PLACE}),
    _adj("boring", "chato", "ser", {PERSON, PAPER, PLACE}),
    _adj(
        "soft",
        "macio",
        "ser",
        {ANIMAL},
        extra={"bed", "sofa", "bread", "cake", "cheese", "coat", "ball"},
    ),
    _adj(
        "round",
        "redondo",
        "ser",
        set(),
        extra={"table", "ball", "plate", "clock", "mirror", "orange", "cake"},
    ),
    _adj(
        "modern",
        "moderno",
        "ser",
        {PLACE},
        extra={"car", "phone", "computer", "train", "plane", "lamp"},
    ),
    _adj("dangerous", "perigoso", "ser", {ANIMAL, PLACE}, extra={"knife", "street"}),
    _adj("fat", "gordo", "ser", {ANIMAL}),
    _adj("thin", "magro", "ser", ANIMATE),
    # estar: the state something is in
    _adj("tired", "cansado", "estar", ANIMATE),
    _adj("sad", "triste", "estar", ANIMATE),
    _adj("ready", "pronto", "estar", ALL - {PLACE}, attributive=False),
    _adj("dirty", "sujo", "estar", NOT_PERSON),
    _adj("clean", "limpo", "estar", NOT_PERSON),
    _adj("sick", "doente", "estar", ANIMATE),
    _adj("busy", "ocupado", "estar", {PERSON}),
    _adj("broken", "quebrado", "estar", (), extra=_BREAKABLE),
    _adj("wet", "molhado", "estar", {ANIMAL, THING, PAPER}),
    _adj("hot", "quente", "estar", {FOOD, DRINK}, extra={"plate", "cup", "car"}),
    _adj("cold", "frio", "estar", {FOOD, DRINK}, extra={"plate", "cup", "house", "room"}),
    _adj("fresh", "fresco", "estar", {FOOD}, extra={"milk", "juice"}),
    _adj(
        "empty",
        "vazio",
        "estar",
        {PLACE},
        extra={"box", "bag", "bottle", "cup", "glass", "plate", "bus", "train", "wallet"},
    ),
    _adj(
        "full",
        "cheio",
        "estar",
        {PLACE},
        extra={"box", "bag", "bottle", "cup", "glass", "plate", "bus", "train", "wallet"},
    ),
    _adj("open", "aberto", "estar", (), extra=_OPENABLE, attributive=False),
    _adj("closed", "fechado", "estar", (), extra=_OPENABLE, attributive=False),
    _adj("angry", "zangado", "estar", ANIMATE),
    _adj(
        "lost",
        "perdido",
        "estar",
        {ANIMAL, THING, PAPER},
        extra={"child", "boy", "girl"},
        attributive=False,
    ),
    _adj("alone", "sozinho", "estar", ANIMATE, attributive=False),
    _adj("quiet", "quieto", "estar", ANIMATE),
]
ADJECTIVE = {a.en: a for a in ADJECTIVES}
# "be" + these is "estar com" + a noun in Portuguese: "i am hungry" -> "estou com fome"
WITH = {"hungry": "fome", "thirsty": "sede", "afraid": "medo", "sleepy": "sono"}

# Present and past, by person: "1s" eu, "3s" você/ele/ela, "1p" nós, "3p" eles.
PERSONS = ("1s", "3s", "1p", "3p")
BE = {
    ("ser", "present"): "sou é somos são",
    ("estar", "present"): "estou está estamos estão",
    ("ser", "past"): "era era éramos eram",  # the imperfect: what something was like
    ("estar", "past"): "estava estava estávamos estavam",
}
GO = "vou vai vamos vão"  # the future: ir + infinitive, "she will eat" -> "ela vai comer"


class Verb(NamedTuple):
    en: str
    en_3s: str  # "he sees"
    en_past: str | None  # "saw"; None: no past tense (English "read" is the same in both)
    inf: str  # Portuguese infinitive, for the future: "vai comer"
    present: dict  # person -> form
    past: dict  # person -> preterite form
    prep: str | None  # "de" (gostar de), "para" (ir para), "em" (morar em): before the object
    subjects: frozenset  # noun classes that can do it
    objects: frozenset  # noun classes it can be done to
    extra: frozenset = frozenset()  # single nouns outside those classes it can be done to
    intransitive: bool = False  # may stand without an object: "he does not eat" -> "ele não come"
    future: bool = True  # False: no "will" ("will go" would be "vai ir")
    names: bool = False  # a name can be its object: "i see maria" -> "vejo maria"

    def takes(self, noun: Noun) -> bool:
        return noun.cls in self.objects or noun.en in self.extra


def _conjugate(inf: str, present=None, past=None) -> tuple[dict, dict]:
    """Regular present and preterite of ``inf``, with the eu forms' spelling rules; irregular forms
    given whole."""
    stem, ending = inf[:-2], inf[-2:]
    if present is None:
        one = stem + "o"
        if inf.endswith("cer"):
            one = stem[:-1] + "ço"
        elif inf.endswith(("ger", "gir")):
            one = stem[:-1] + "jo"
        present = {
            "ar": f"{one} {stem}a {stem}amos {stem}am",
            "er": f"{one} {stem}e {stem}emos {stem}em",
            "ir": f"{one} {stem}e {stem}imos {stem}em",
        }[ending]
    if past is None:
        one = {"ar": stem + "ei", "er": stem + "i", "ir": stem + "i"}[ending]
        if inf.endswith("car"):
            one = stem[:-1] + "quei"
        elif inf.endswith("gar"):
            one = stem + "uei"
        elif inf.endswith("çar"):
            one = stem[:-1] + "cei"
        past = {
            "ar": f"{one} {stem}ou {stem}amos {stem}aram",
            "er": f"{one} {stem}eu {stem}emos {stem}eram",
            "ir": f"{one} {stem}iu {stem}imos {stem}iram",
        }[ending]
    return dict(zip(PERSONS, present.split())), dict(zip(PERSONS, past.split()))


def _verb(
    en,
    en_3s,
    en_past,
    inf,
    subjects,
    objects,
    *,
    present=None,
    past=None,
    prep=None,
    extra=(),
    intransitive=False,
    future=True,
    names=False,
) -> Verb:
    pres, pret = _conjugate(inf, present, past)
    return Verb(
        en,
        en_3s,
        en_past,
        inf,
        pres,
        pret,
        prep,
        frozenset(subjects),
        frozenset(objects),
        frozenset(extra),
        intransitive,
        future,
        names,
    )


_FAMILY = {
    "friend",
    "teacher",
    "mother",
    "father",
    "brother",
    "sister",
    "son",
    "daughter",
    "baby",
    "neighbor",
}
VERBS = [
    # the core lexicon of the first course
    _verb(
        "see",
        "sees",
        "saw",
        "ver",
        ANIMATE,
        ALL,
        present="vejo vê vemos veem",
        past="vi viu vimos viram",
        names=True,
    ),
    _verb("eat", "eats", "ate", "comer", ANIMATE, {FOOD}, intransitive=True),
    _verb(
        "have",
        "has",
        "had",
        "ter",
        ANIMATE,
        OBJECTS | {ANIMAL},
        extra=_FAMILY,
        present="tenho tem temos têm",
        past="tive teve tivemos tiveram",
    ),
    _verb("like", "likes", "liked", "gostar", ANIMATE, ALL, prep="de", names=True),
    _verb(
        "read",
        "reads",
        None,
        "ler",
        {PERSON},
        {PAPER},
        intransitive=True,
        present="leio lê lemos leem",
        past="li leu lemos leram",
    ),
    _verb(
        "want",
        "wants",
        "wanted",
        "querer",
        ANIMATE,
        OBJECTS | {ANIMAL},
        present="quero quer queremos querem",
        past="quis quis quisemos quiseram",
    ),
    _verb("buy", "buys", "bought", "comprar", {PERSON}, OBJECTS | {ANIMAL}),
    # more verbs
    _verb(
        "need",
        "needs",
        "needed",
        "precisar",
        ANIMATE,
        OBJECTS | {ANIMAL},
        prep="de",
        extra=_FAMILY,
        names=True,
    ),
    _verb("sell", "sells", "sold", "vender", {PERSON}, OBJECTS | {ANIMAL, PLACE}),
    _verb("wash", "washes", "washed", "lavar", {PERSON}, {ANIMAL, FOOD, THING}),
    _verb("find", "finds", "found", "encontrar", ANIMATE, ALL - {PLACE}, names=True),
    _verb("draw", "draws", "drew", "desenhar", {PERSON}, ALL - {DRINK}, intransitive=True),
    _verb("love", "loves", "loved", "amar", {PERSON}, ALL, names=True),
    _verb("know", "knows", "knew", "conhecer", ANIMATE, {PERSON, PLACE}, names=True),
    _verb(
        "go",
        "goes",
        "went",
        "ir",
        ANIMATE,
        {PLACE},
        prep="para",
        future=False,
        present="vou vai vamos vão",
        past="fui foi fomos foram",
    ),
    _verb("live", "lives", "lived", "morar", ANIMATE, {PLACE}, prep="em", intransitive=False),
    _verb("work", "works", "worked", "trabalhar", {PERSON}, {PLACE}, prep="em", intransitive=True),
    _verb(
        "make",
        "makes",
        "made",
        "fazer",
        {PERSON},
        set(),
        extra={
            "cake",
            "sandwich",
            "pizza",
            "pie",
            "soup",
            "bread",
            "tea",
            "coffee",
            "juice",
            "box",
            "table",
            "chair",
            "hat",
            "dress",
            "toy",
        },
        present="faço faz fazemos fazem",
        past="fiz fez fizemos fizeram",
    ),
    _verb("cook", "cooks", "cooked", "cozinhar", {PERSON}, {FOOD}, intransitive=True),
    _verb("drink", "drinks", "drank", "beber", ANIMATE, {DRINK}, intransitive=True),
    _verb(
        "open",
        "opens",
        "opened",
        "abrir",
        {PERSON},
        set(),
        extra=_OPENABLE - {"store", "bank", "museum", "school", "library", "restaurant", "market"},
    ),
    _verb(
        "close",
        "closes",
        "closed",
        "fechar",
        {PERSON},
        set(),
        extra=_OPENABLE - {"store", "bank", "museum", "school", "library", "restaurant", "market"},
    ),
    _verb("write", "writes", "wrote", "escrever", {PERSON}, {PAPER}, intransitive=True),
    _verb(
        "bring",
        "brings",
        "brought",
        "trazer",
        {PERSON},
        OBJECTS | {ANIMAL},
        present="trago traz trazemos trazem",
        past="trouxe trouxe trouxemos trouxeram",
    ),
    _verb(
        "carry",
        "carries",
        "carried",
        "carregar",
        ANIMATE,
        {THING, PAPER, FOOD},
        extra={"baby", "cat", "dog"},
    ),
    _verb(
        "clean",
        "cleans",
        "cleaned",
        "limpar",
        {PERSON},
        {THING},
        extra={"house", "room", "kitchen", "office"},
    ),
    _verb(
        "paint",
        "paints",
        "painted",
        "pintar",
        {PERSON},
        {THING},
        extra={"house", "room", "kitchen"},
        intransitive=True,
    ),
    _verb("break", "breaks", "broke", "quebrar", ANIMATE, set(), extra=_BREAKABLE),
    _verb("fix", "fixes", "fixed", "consertar", {PERSON}, set(), extra=_BREAKABLE),
    _verb("use", "uses", "used", "usar", {PERSON}, {THING}),
    _verb("visit", "visits", "visited", "visitar", {PERSON}, {PLACE, PERSON}, names=True),
    _verb("help", "helps", "helped", "ajudar", ANIMATE, {PERSON}, names=True),
    _verb(
        "hear",
        "hears",
        "heard",
        "ouvir",
        ANIMATE,
        ANIMATE,
        extra={"clock", "phone", "guitar", "train"},
        present="ouço ouve ouvimos ouvem",
        past="ouvi ouviu ouvimos ouviram",
        names=True,
    ),
    _verb(
        "watch",
        "watches",
        "watched",
        "observar",
        ANIMATE,
        ANIMATE,
        extra={"tree", "flower", "plane", "boat"},
    ),
    _verb("feed", "feeds", "fed", "alimentar", {PERSON}, {ANIMAL}, extra={"baby", "child"}),
    _verb(
        "follow",
        "follows",
        "followed",
        "seguir",
        ANIMATE,
        ANIMATE,
        present="sigo segue seguimos seguem",
        past="segui seguiu seguimos seguiram",
        names=True,
    ),
    _verb("hug", "hugs", "hugged", "abraçar", {PERSON}, ANIMATE, extra={"tree"}, names=True),
    _verb("kiss", "kisses", "kissed", "beijar", {PERSON}, {PERSON}, names=True),
    _verb(
        "catch",
        "catches",
        "caught",
        "pegar",
        ANIMATE,
        {ANIMAL},
        extra={"ball", "bus", "train", "key"},
    ),
    _verb(
        "throw",
        "throws",
        "threw",
        "jogar",
        {PERSON},
        set(),
        extra={"ball", "apple", "key", "box", "egg", "orange", "pen", "pencil"},
    ),
    _verb(
        "drive",
        "drives",
        "drove",
        "dirigir",
        {PERSON},
        set(),
        extra={"car", "bus", "truck", "train"},
        intransitive=True,
    ),
    _verb("choose", "chooses", "chose", "escolher", {PERSON}, ALL - {PERSON}),
    _verb("forget", "forgets", "forgot", "esquecer", {PERSON}, {THING, PAPER}),
    _verb(
        "lose",
        "loses",
        "lost",
        "perder",
        ANIMATE,
        {THING, PAPER},
        present="perco perde perdemos perdem",
    ),
    _verb("hide", "hides", "hid", "esconder", ANIMATE, {THING, PAPER, FOOD}),
    _verb(
        "hate",
        "hates",
        "hated",
        "odiar",
        {PERSON},
        {FOOD, DRINK, ANIMAL, PLACE},
        present="odeio odeia odiamos odeiam",
    ),
    _verb(
        "prefer",
        "prefers",
        "preferred",
        "preferir",
        ANIMATE,
        ALL - {PERSON},
        present="prefiro prefere preferimos preferem",
    ),
    _verb(
        "build",
        "builds",
        "built",
        "construir",
        {PERSON},
        set(),
        extra={
            "house",
            "boat",
            "table",
            "chair",
            "box",
            "school",
            "hospital",
            "castle",
            "bed",
            "sofa",
        },
        present="construo constrói construímos constroem",
        past="construí construiu construímos construíram",
    ),
    _verb("touch", "touches", "touched", "tocar", ANIMATE, ALL - {PLACE, DRINK}),
    _verb(
        "count",
        "counts",
        "counted",
        "contar",
        {PERSON},
        {ANIMAL, FOOD, THING, PAPER},
        intransitive=True,
    ),
    _verb("take", "takes", "took", "levar", ANIMATE, OBJECTS | {ANIMAL}),
    _verb("hold", "holds", "held", "segurar", {PERSON}, {THING, PAPER, FOOD, ANIMAL}),
    _verb("smell", "smells", "smelled", "cheirar", ANIMATE, {FOOD, DRINK}, extra={"flower"}),
    _verb("pull", "pulls", "pulled", "puxar", ANIMATE, {THING}, extra={"door"}),
    _verb("push", "pushes", "pushed", "empurrar", ANIMATE, {THING}, extra={"door"}),
    _verb(
        "kick", "kicks", "kicked", "chutar", ANIMATE, set(), extra={"ball", "door", "box", "chair"}
    ),
    # no object
    _verb("sing", "sings", "sang", "cantar", {PERSON}, set(), intransitive=True),
    _verb("dance", "dances", "danced", "dançar", {PERSON}, set(), intransitive=True),
    _verb("run", "runs", "ran", "correr", ANIMATE, set(), intransitive=True),
    _verb("swim", "swims", "swam", "nadar", ANIMATE, set(), intransitive=True),
    _verb(
        "sleep",
        "sleeps",
        "slept",
        "dormir",
        ANIMATE,
        set(),
        intransitive=True,
        present="durmo dorme dormimos dormem",
    ),
    _verb("walk", "walks", "walked", "caminhar", ANIMATE, set(), intransitive=True),
    _verb("cry", "cries", "cried", "chorar", {PERSON}, set(), intransitive=True),
    _verb(
        "laugh",
        "laughs",
        "laughed",
        "rir",
        {PERSON},
        set(),
        intransitive=True,
        present="rio ri rimos riem",
        past="ri riu rimos riram",
    ),
    _verb("study", "studies", "studied", "estudar", {PERSON}, set(), intransitive=True),
    _verb("arrive", "arrives", "arrived", "chegar", ANIMATE, set(), intransitive=True),
    _verb("jump", "jumps", "jumped", "pular", ANIMATE, set(), intransitive=True),
    _verb("travel", "travels", "traveled", "viajar", {PERSON}, set(), intransitive=True),
    _verb(
        "smile",
        "smiles",
        "smiled",
        "sorrir",
        {PERSON},
        set(),
        intransitive=True,
        present="sorrio sorri sorrimos sorriem",
        past="sorri sorriu sorrimos sorriram",
    ),
]
VERB = {v.en: v for v in VERBS}


class Pronoun(NamedTuple):
    en: str
    pt: str | None  # None: dropped, the verb's ending says who ("sou feliz")
    person: str  # Portuguese person of the verb
    gender: str  # of the adjectives that agree with it (masculine when English does not say)
    plural: bool
    en_agree: str  # English agreement: "1s" (am), "3s" (is, does, -s), "pl" (are, do)
    en_be: str  # contracted "be": "i'm"


PRONOUNS = [
    Pronoun("i", None, "1s", "m", False, "1s", "i'm"),
    Pronoun("you", "você", "3s", "m", False, "pl", "you're"),
    Pronoun("he", "ele", "3s", "m", False, "3s", "he's"),
    Pronoun("she", "ela", "3s", "f", False, "3s", "she's"),
    Pronoun("we", None, "1p", "m", True, "pl", "we're"),
    Pronoun("they", "eles", "3p", "m", True, "pl", "they're"),
]
PRONOUN = {p.en: p for p in PRONOUNS}

# Determiners: English word -> Portuguese (masc sg, fem sg, masc pl, fem pl); None where there is
# none.
DETERMINERS = {
    "the": ("o", "a", "os", "as"),
    "a": ("um", "uma", None, None),
    "my": ("meu", "minha", "meus", "minhas"),
    "your": ("seu", "sua", "seus", "suas"),
    "": ("", "", "", ""),  # a mass noun alone: "i want water" -> "quero água"
}
NUMBERS = {  # a number word is a determiner of a plural noun
    "two": ("dois", "duas"),
    "three": ("três", "três"),
    "four": ("quatro", "quatro"),
    "five": ("cinco", "cinco"),
    "six": ("seis", "seis"),
    "seven": ("sete", "sete"),
    "eight": ("oito", "oito"),
    "nine": ("nove", "nove"),
    "ten": ("dez", "dez"),
}
# Prepositions that contract with the article: de + o = do, em + a = na. de + um stays "de um" (the
# contracted "dum" is European and informal), and so does "em um"; before a possessive, Brazilian
# usage puts the article back in: "gosto do meu gato", "está na minha casa".
CONTRACT = {
    "de": {"o": "do", "a": "da", "os": "dos", "as": "das"},
    "em": {"o": "no", "a": "na", "os": "nos", "as": "nas"},
}
TIMES = {  # a time at the end of a sentence, and the tenses it goes with
    "today": ("hoje", ("present", "past", "future")),
    "now": ("agora", ("present",)),
    "yesterday": ("ontem", ("past",)),
    "tomorrow": ("amanhã", ("future",)),
    "every day": ("todos os dias", ("present",)),
    "at night": ("à noite", ("present", "past", "future")),
    "in the morning": ("de manhã", ("present", "past", "future")),
}
# Titles before a name: English -> (Portuguese article, title). "dr" says no gender in English; the
# Portuguese takes the masculine, as it does for "you" and for names alone.
TITLES = {
    "mr": ("o", "senhor"),
    "mrs": ("a", "senhora"),
    "ms": ("a", "senhora"),
    "dr": ("o", "doutor"),
}
# Relations before a name ("my friend ana" -> "minha amiga ana", issue 36): the nouns of people a
# learner names someone by. Those whose Portuguese changes with the person's gender have their
# feminine here (singular: one person has one name); the others (mother, brother...) are of the
# noun's own gender, and only a name of that gender or of none known follows them.
RELATION_FEMININE = {
    "friend": "amiga",
    "teacher": "professora",
    "neighbor": "vizinha",
    "student": "aluna",
    "doctor": "médica",
}
RELATIONS = (*RELATION_FEMININE, "mother", "father", "brother", "sister", "son", "daughter")


def relation_gender(relation: str) -> str:
    """The gender a relation gives the person it names ("sister": "f"); "" for one that takes
    the person's ("friend": "amigo" or "amiga")."""
    if relation not in RELATIONS:
        raise ValueError(f"a relation is one of {RELATIONS}, got {relation!r}")
    return "" if relation in RELATION_FEMININE else NOUN[relation].gender


# Answer words before a sentence, "no, i am not tired" -> "não, não estou cansado".
REPLIES = {"no": "não", "yes": "sim"}
# The fixed expressions an answer word may come before: "no, thank you", "yes, please".
REPLY_PHRASES = {
    "no": ("thank you", "thanks", "thank you very much", "not today", "not now", "not tomorrow"),
    "yes": ("please", "thank you", "thanks", "thank you very much"),
}
PHRASES = [  # fixed expressions: what a learner types first
    ("hello", "olá"),
    ("hi", "oi"),
    ("good morning", "bom dia"),
    ("good afternoon", "boa tarde"),
    ("good night", "boa noite"),
    ("goodbye", "tchau"),
    ("thank you", "obrigado"),
    ("thanks", "obrigado"),
    ("thank you very much", "muito obrigado"),
    ("please", "por favor"),
    ("yes", "sim"),
    ("no", "não"),
    ("sorry", "desculpe"),
    ("excuse me", "com licença"),
    ("welcome", "bem-vindo"),
    ("how are you", "como você está"),
    ("i love you", "te amo"),
    ("i love you very much", "te amo muito"),
    ("what is your name", "qual é o seu nome"),
    ("nice to meet you", "prazer em conhecer você"),
    ("see you tomorrow", "até amanhã"),
    ("good luck", "boa sorte"),
    # "not" and a time: the Portuguese puts "não" last
    ("not today", "hoje não"),
    ("not now", "agora não"),
    ("not tomorrow", "amanhã não"),
    ("not yesterday", "ontem não"),
]
