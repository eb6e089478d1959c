"""The phrasebook: English→Portuguese sentence pairs from a small grammar of both languages.

``phrasebook(split)`` returns ``(english, portuguese)`` pairs: no download,
the same pairs on every machine and every Python, no torch. The grammar is
built to need attention:

- reordering: the adjective follows the noun ("the red car" → "o carro vermelho");
- agreement: articles, numbers, possessives and adjectives take the noun's (or
  the subject's) gender and number ("two houses" → "duas casas", "she is
  tired" → "ela está cansada", and "criança" is feminine whoever the child is);
- many-to-one and one-to-many: eu and nós are dropped ("I am happy" → "sou
  feliz"), do-support and "will" have no Portuguese word of their own ("he
  does not eat" → "ele não come", "she will eat" → "ela vai comer"), "I am
  hungry" → "estou com fome", and prepositions contract with the article
  ("I like the cat" → "gosto do gato", "the cat is in the box" → "o gato está
  na caixa");
- ser or estar, chosen by the adjective ("é feliz" but "está cansado"), and in
  the past the imperfect ("era feliz", "estava cansado");
- copying: names and numbers are written in the translation as they are
  ("maria sees the dog" → "maria vê o cachorro", "I have 3 dogs" → "tenho 3
  cachorros"). Each name and each number is used once in the whole
  phrasebook, so a vocabulary of the words seen twice or more has none of
  them: the model learns to write ``<unk>`` where the source has one, and
  decoding copies the word that cross-attention points at (chapter 10).

The test split holds out adjective–noun and verb–object combinations that
never occur in training, so it measures generalisation, not recall.

A sentence is a *spec*, a named tuple (``Sentence``, ``Compound``, ``Phrase``
and the noun phrases ``NP``, ``Pron``, ``Name``); ``render(spec)`` writes it in
both languages, and that is all the grammar there is.

Used in chapter 9 (Training a translator).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple, Optional, Union

__all__ = ["phrasebook", "held_out", "SPLIT_SIZES", "english_words", "render", "NP", "Pron", "Name",
           "Sentence", "Compound", "Phrase"]


# --- the lexicon -----------------------------------------------------------------------------
#
# Nouns fall into classes, and each verb and adjective says which classes it
# takes, so that the grammar writes "the dog eats the apple" but never "the
# dog reads the girl" and never gives a colour to a person.

PERSON, ANIMAL, FOOD, DRINK, THING, PAPER, PLACE = "person", "animal", "food", "drink", "thing", "paper", "place"
ALL = frozenset({PERSON, ANIMAL, FOOD, DRINK, THING, PAPER, PLACE})
ANIMATE = frozenset({PERSON, ANIMAL})
OBJECTS = frozenset({FOOD, DRINK, THING, PAPER})  # what can be carried, bought, lost
NOT_PERSON = ALL - {PERSON}


class Noun(NamedTuple):
    en: str
    en_pl: Optional[str]  # None: a mass noun ("water"), never plural nor with "a"
    pt: str
    pt_pl: Optional[str]
    gender: str  # "m" or "f", of the Portuguese noun
    cls: str
    possessive: bool = True  # False: never "my"/"your" ("minha mulher" would say "my wife")
    en_in: str = "in"  # the English preposition of place: "in the park", "at the beach", "on the island"


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
    attributive: bool = True  # False: only after "be" ("ready": "the car is ready", never "the ready car")

    def takes(self, noun: Noun) -> bool:
        return noun.cls in self.classes or noun.en in self.extra

    def form(self, gender: str, plural: bool) -> str:
        return self.pt[(gender == "f") + 2 * plural]

    @property
    def invariable(self) -> bool:
        """The same for both genders ("feliz", "triste"): safe for a name, whose gender is unknown."""
        return self.pt[0] == self.pt[1]


def _adj(en, pt, copula, classes, extra=(), attributive=True, pt_pl=None, forms=None) -> Adjective:
    """``pt`` is the masculine singular; -o adjectives inflect -a/-os/-as, the others only take a plural."""
    if forms:
        forms = tuple(forms.split())
    elif pt.endswith("o"):
        forms = (pt, pt[:-1] + "a", pt + "s", pt[:-1] + "as")
    else:
        plural = pt_pl or pt + "s"
        forms = (pt, pt, plural, plural)
    return Adjective(en, forms, copula, frozenset(classes), frozenset(extra), attributive)


_COLOURED = {FOOD, THING, PAPER}
_BREAKABLE = {"car", "table", "chair", "door", "window", "ball", "key", "box", "boat", "train", "bed", "lamp",
              "cup", "glass", "plate", "bottle", "phone", "computer", "pen", "pencil", "clock", "bicycle", "bus",
              "plane", "truck", "mirror", "umbrella", "toy", "guitar", "sofa"}
_OPENABLE = {"door", "window", "box", "bag", "bottle", "book", "letter", "notebook", "store", "bank", "museum",
             "school", "library", "restaurant", "market", "umbrella", "wallet"}

ADJECTIVES = [
    # ser: what something is
    _adj("happy", "feliz", "ser", ANIMATE, pt_pl="felizes"),
    _adj("big", "grande", "ser", ALL - {DRINK}),
    _adj("small", "pequeno", "ser", ALL - {DRINK}),
    _adj("new", "novo", "ser", {THING, PAPER, PLACE}, extra={"friend", "teacher", "neighbor", "student", "doctor"}),
    _adj("old", "velho", "ser", ALL - {DRINK, FOOD}),
    _adj("red", "vermelho", "ser", _COLOURED, extra={"bird"}),
    _adj("black", "preto", "ser", {ANIMAL, THING, PAPER}, extra={"grape"}),
    _adj("tall", "alto", "ser", ANIMATE, extra={"house", "tree", "door", "table", "chair", "castle"}),
    _adj("white", "branco", "ser", {ANIMAL, THING, PAPER, PLACE}, extra={"bread", "cheese", "rice", "wine"}),
    _adj("green", "verde", "ser", _COLOURED, extra={"bird", "frog", "snake"}),
    _adj("blue", "azul", "ser", {THING, PAPER}, extra={"bird", "house"}, pt_pl="azuis"),
    _adj("yellow", "amarelo", "ser", _COLOURED, extra={"bird", "house"}),
    _adj("brown", "marrom", "ser", {ANIMAL, THING}, pt_pl="marrons"),
    _adj("pink", "rosa", "ser", {THING, PAPER}, extra={"pig", "flower"}, forms="rosa rosa rosa rosa"),
    _adj("gray", "cinza", "ser", {THING}, extra={"cat", "mouse", "elephant", "wolf"}, forms="cinza cinza cinza cinza"),
    _adj("beautiful", "bonito", "ser", ALL - {DRINK}),
    _adj("ugly", "feio", "ser", ALL - {DRINK, FOOD}),
    _adj("young", "jovem", "ser", ANIMATE, pt_pl="jovens"),
    _adj("strong", "forte", "ser", ANIMATE, extra={"coffee", "tea"}),
    _adj("weak", "fraco", "ser", ANIMATE, extra={"coffee", "tea"}),
    _adj("fast", "rápido", "ser", {ANIMAL}, extra={"car", "train", "boat", "bus", "plane", "truck", "bicycle"}),
    _adj("slow", "lento", "ser", {ANIMAL}, extra={"car", "train", "boat", "bus", "truck", "computer"}),
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
    _adj("soft", "macio", "ser", {ANIMAL}, extra={"bed", "sofa", "bread", "cake", "cheese", "coat", "ball"}),
    _adj("round", "redondo", "ser", set(), extra={"table", "ball", "plate", "clock", "mirror", "orange", "cake"}),
    _adj("modern", "moderno", "ser", {PLACE}, extra={"car", "phone", "computer", "train", "plane", "lamp"}),
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
    _adj("empty", "vazio", "estar", {PLACE}, extra={"box", "bag", "bottle", "cup", "glass", "plate", "bus", "train",
                                                     "wallet"}),
    _adj("full", "cheio", "estar", {PLACE}, extra={"box", "bag", "bottle", "cup", "glass", "plate", "bus", "train",
                                                    "wallet"}),
    _adj("open", "aberto", "estar", (), extra=_OPENABLE, attributive=False),
    _adj("closed", "fechado", "estar", (), extra=_OPENABLE, attributive=False),
    _adj("angry", "zangado", "estar", ANIMATE),
    _adj("lost", "perdido", "estar", {ANIMAL, THING, PAPER}, extra={"child", "boy", "girl"}, attributive=False),
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
    en_past: Optional[str]  # "saw"; None: no past tense (English "read" is the same in both)
    inf: str  # Portuguese infinitive, for the future: "vai comer"
    present: dict  # person -> form
    past: dict  # person -> preterite form
    prep: Optional[str]  # "de" (gostar de), "para" (ir para), "em" (morar em): before the object
    subjects: frozenset  # noun classes that can do it
    objects: frozenset  # noun classes it can be done to
    extra: frozenset = frozenset()  # single nouns outside those classes it can be done to
    intransitive: bool = False  # may stand without an object: "he does not eat" -> "ele não come"
    future: bool = True  # False: no "will" ("will go" would be "vai ir")
    names: bool = False  # a name can be its object: "i see maria" -> "vejo maria"

    def takes(self, noun: Noun) -> bool:
        return noun.cls in self.objects or noun.en in self.extra


def _conjugate(inf: str, present=None, past=None) -> tuple[dict, dict]:
    """Regular present and preterite of ``inf``, with the eu forms' spelling rules; irregular forms given whole."""
    stem, ending = inf[:-2], inf[-2:]
    if present is None:
        one = stem + "o"
        if inf.endswith("cer"):
            one = stem[:-1] + "ço"
        elif inf.endswith(("ger", "gir")):
            one = stem[:-1] + "jo"
        present = {"ar": f"{one} {stem}a {stem}amos {stem}am", "er": f"{one} {stem}e {stem}emos {stem}em",
                   "ir": f"{one} {stem}e {stem}imos {stem}em"}[ending]
    if past is None:
        one = {"ar": stem + "ei", "er": stem + "i", "ir": stem + "i"}[ending]
        if inf.endswith("car"):
            one = stem[:-1] + "quei"
        elif inf.endswith("gar"):
            one = stem + "uei"
        elif inf.endswith("çar"):
            one = stem[:-1] + "cei"
        past = {"ar": f"{one} {stem}ou {stem}amos {stem}aram", "er": f"{one} {stem}eu {stem}emos {stem}eram",
                "ir": f"{one} {stem}iu {stem}imos {stem}iram"}[ending]
    return dict(zip(PERSONS, present.split())), dict(zip(PERSONS, past.split()))


def _verb(en, en_3s, en_past, inf, subjects, objects, *, present=None, past=None, prep=None, extra=(),
          intransitive=False, future=True, names=False) -> Verb:
    pres, pret = _conjugate(inf, present, past)
    return Verb(en, en_3s, en_past, inf, pres, pret, prep, frozenset(subjects), frozenset(objects),
                frozenset(extra), intransitive, future, names)


_FAMILY = {"friend", "teacher", "mother", "father", "brother", "sister", "son", "daughter", "baby", "neighbor"}
VERBS = [
    # the core lexicon of the first course
    _verb("see", "sees", "saw", "ver", ANIMATE, ALL, present="vejo vê vemos veem", past="vi viu vimos viram",
          names=True),
    _verb("eat", "eats", "ate", "comer", ANIMATE, {FOOD}, intransitive=True),
    _verb("have", "has", "had", "ter", ANIMATE, OBJECTS | {ANIMAL}, extra=_FAMILY, present="tenho tem temos têm",
          past="tive teve tivemos tiveram"),
    _verb("like", "likes", "liked", "gostar", ANIMATE, ALL, prep="de", names=True),
    _verb("read", "reads", None, "ler", {PERSON}, {PAPER}, intransitive=True, present="leio lê lemos leem",
          past="li leu lemos leram"),
    _verb("want", "wants", "wanted", "querer", ANIMATE, OBJECTS | {ANIMAL}, present="quero quer queremos querem",
          past="quis quis quisemos quiseram"),
    _verb("buy", "buys", "bought", "comprar", {PERSON}, OBJECTS | {ANIMAL}),
    # more verbs
    _verb("need", "needs", "needed", "precisar", ANIMATE, OBJECTS | {ANIMAL}, prep="de", extra=_FAMILY, names=True),
    _verb("sell", "sells", "sold", "vender", {PERSON}, OBJECTS | {ANIMAL, PLACE}),
    _verb("wash", "washes", "washed", "lavar", {PERSON}, {ANIMAL, FOOD, THING}),
    _verb("find", "finds", "found", "encontrar", ANIMATE, ALL - {PLACE}, names=True),
    _verb("draw", "draws", "drew", "desenhar", {PERSON}, ALL - {DRINK}, intransitive=True),
    _verb("love", "loves", "loved", "amar", {PERSON}, ALL, names=True),
    _verb("know", "knows", "knew", "conhecer", ANIMATE, {PERSON, PLACE}, names=True),
    _verb("go", "goes", "went", "ir", ANIMATE, {PLACE}, prep="para", future=False, present="vou vai vamos vão",
          past="fui foi fomos foram"),
    _verb("live", "lives", "lived", "morar", ANIMATE, {PLACE}, prep="em", intransitive=False),
    _verb("work", "works", "worked", "trabalhar", {PERSON}, {PLACE}, prep="em", intransitive=True),
    _verb("make", "makes", "made", "fazer", {PERSON}, set(), extra={"cake", "sandwich", "pizza", "pie", "soup",
          "bread", "tea", "coffee", "juice", "box", "table", "chair", "hat", "dress", "toy"},
          present="faço faz fazemos fazem", past="fiz fez fizemos fizeram"),
    _verb("cook", "cooks", "cooked", "cozinhar", {PERSON}, {FOOD}, intransitive=True),
    _verb("drink", "drinks", "drank", "beber", ANIMATE, {DRINK}, intransitive=True),
    _verb("open", "opens", "opened", "abrir", {PERSON}, set(), extra=_OPENABLE - {"store", "bank", "museum",
          "school", "library", "restaurant", "market"}),
    _verb("close", "closes", "closed", "fechar", {PERSON}, set(), extra=_OPENABLE - {"store", "bank", "museum",
          "school", "library", "restaurant", "market"}),
    _verb("write", "writes", "wrote", "escrever", {PERSON}, {PAPER}, intransitive=True),
    _verb("bring", "brings", "brought", "trazer", {PERSON}, OBJECTS | {ANIMAL}, present="trago traz trazemos trazem",
          past="trouxe trouxe trouxemos trouxeram"),
    _verb("carry", "carries", "carried", "carregar", ANIMATE, {THING, PAPER, FOOD}, extra={"baby", "cat", "dog"}),
    _verb("clean", "cleans", "cleaned", "limpar", {PERSON}, {THING}, extra={"house", "room", "kitchen", "office"}),
    _verb("paint", "paints", "painted", "pintar", {PERSON}, {THING}, extra={"house", "room", "kitchen"},
          intransitive=True),
    _verb("break", "breaks", "broke", "quebrar", ANIMATE, set(), extra=_BREAKABLE),
    _verb("fix", "fixes", "fixed", "consertar", {PERSON}, set(), extra=_BREAKABLE),
    _verb("use", "uses", "used", "usar", {PERSON}, {THING}),
    _verb("visit", "visits", "visited", "visitar", {PERSON}, {PLACE, PERSON}, names=True),
    _verb("help", "helps", "helped", "ajudar", ANIMATE, {PERSON}, names=True),
    _verb("hear", "hears", "heard", "ouvir", ANIMATE, ANIMATE, extra={"clock", "phone", "guitar", "train"},
          present="ouço ouve ouvimos ouvem", past="ouvi ouviu ouvimos ouviram", names=True),
    _verb("watch", "watches", "watched", "observar", ANIMATE, ANIMATE, extra={"tree", "flower", "plane", "boat"}),
    _verb("feed", "feeds", "fed", "alimentar", {PERSON}, {ANIMAL}, extra={"baby", "child"}),
    _verb("follow", "follows", "followed", "seguir", ANIMATE, ANIMATE, present="sigo segue seguimos seguem",
          past="segui seguiu seguimos seguiram", names=True),
    _verb("hug", "hugs", "hugged", "abraçar", {PERSON}, ANIMATE, extra={"tree"}, names=True),
    _verb("kiss", "kisses", "kissed", "beijar", {PERSON}, {PERSON}, names=True),
    _verb("catch", "catches", "caught", "pegar", ANIMATE, {ANIMAL}, extra={"ball", "bus", "train", "key"}),
    _verb("throw", "throws", "threw", "jogar", {PERSON}, set(), extra={"ball", "apple", "key", "box", "egg",
          "orange", "pen", "pencil"}),
    _verb("drive", "drives", "drove", "dirigir", {PERSON}, set(), extra={"car", "bus", "truck", "train"},
          intransitive=True),
    _verb("choose", "chooses", "chose", "escolher", {PERSON}, ALL - {PERSON}),
    _verb("forget", "forgets", "forgot", "esquecer", {PERSON}, {THING, PAPER}),
    _verb("lose", "loses", "lost", "perder", ANIMATE, {THING, PAPER}, present="perco perde perdemos perdem"),
    _verb("hide", "hides", "hid", "esconder", ANIMATE, {THING, PAPER, FOOD}),
    _verb("hate", "hates", "hated", "odiar", {PERSON}, {FOOD, DRINK, ANIMAL, PLACE},
          present="odeio odeia odiamos odeiam"),
    _verb("prefer", "prefers", "preferred", "preferir", ANIMATE, ALL - {PERSON},
          present="prefiro prefere preferimos preferem"),
    _verb("build", "builds", "built", "construir", {PERSON}, set(), extra={"house", "boat", "table", "chair", "box",
          "school", "hospital", "castle", "bed", "sofa"}, present="construo constrói construímos constroem",
          past="construí construiu construímos construíram"),
    _verb("touch", "touches", "touched", "tocar", ANIMATE, ALL - {PLACE, DRINK}),
    _verb("count", "counts", "counted", "contar", {PERSON}, {ANIMAL, FOOD, THING, PAPER}, intransitive=True),
    _verb("take", "takes", "took", "levar", ANIMATE, OBJECTS | {ANIMAL}),
    _verb("hold", "holds", "held", "segurar", {PERSON}, {THING, PAPER, FOOD, ANIMAL}),
    _verb("smell", "smells", "smelled", "cheirar", ANIMATE, {FOOD, DRINK}, extra={"flower"}),
    _verb("pull", "pulls", "pulled", "puxar", ANIMATE, {THING}, extra={"door"}),
    _verb("push", "pushes", "pushed", "empurrar", ANIMATE, {THING}, extra={"door"}),
    _verb("kick", "kicks", "kicked", "chutar", ANIMATE, set(), extra={"ball", "door", "box", "chair"}),
    # no object
    _verb("sing", "sings", "sang", "cantar", {PERSON}, set(), intransitive=True),
    _verb("dance", "dances", "danced", "dançar", {PERSON}, set(), intransitive=True),
    _verb("run", "runs", "ran", "correr", ANIMATE, set(), intransitive=True),
    _verb("swim", "swims", "swam", "nadar", ANIMATE, set(), intransitive=True),
    _verb("sleep", "sleeps", "slept", "dormir", ANIMATE, set(), intransitive=True,
          present="durmo dorme dormimos dormem"),
    _verb("walk", "walks", "walked", "caminhar", ANIMATE, set(), intransitive=True),
    _verb("cry", "cries", "cried", "chorar", {PERSON}, set(), intransitive=True),
    _verb("laugh", "laughs", "laughed", "rir", {PERSON}, set(), intransitive=True, present="rio ri rimos riem",
          past="ri riu rimos riram"),
    _verb("study", "studies", "studied", "estudar", {PERSON}, set(), intransitive=True),
    _verb("arrive", "arrives", "arrived", "chegar", ANIMATE, set(), intransitive=True),
    _verb("jump", "jumps", "jumped", "pular", ANIMATE, set(), intransitive=True),
    _verb("travel", "travels", "traveled", "viajar", {PERSON}, set(), intransitive=True),
    _verb("smile", "smiles", "smiled", "sorrir", {PERSON}, set(), intransitive=True,
          present="sorrio sorri sorrimos sorriem", past="sorri sorriu sorrimos sorriram"),
]
VERB = {v.en: v for v in VERBS}


class Pronoun(NamedTuple):
    en: str
    pt: Optional[str]  # None: dropped, the verb's ending says who ("sou feliz")
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

# Determiners: English word -> Portuguese (masc sg, fem sg, masc pl, fem pl); None where there is none.
DETERMINERS = {
    "the": ("o", "a", "os", "as"),
    "a": ("um", "uma", None, None),
    "my": ("meu", "minha", "meus", "minhas"),
    "your": ("seu", "sua", "seus", "suas"),
    "": ("", "", "", ""),  # a mass noun alone: "i want water" -> "quero água"
}
NUMBERS = {  # a number word is a determiner of a plural noun
    "two": ("dois", "duas"), "three": ("três", "três"), "four": ("quatro", "quatro"),
    "five": ("cinco", "cinco"), "six": ("seis", "seis"), "seven": ("sete", "sete"),
    "eight": ("oito", "oito"), "nine": ("nove", "nove"), "ten": ("dez", "dez"),
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
PHRASES = [  # fixed expressions: what a learner types first
    ("hello", "olá"), ("hi", "oi"), ("good morning", "bom dia"), ("good afternoon", "boa tarde"),
    ("good night", "boa noite"), ("goodbye", "tchau"), ("thank you", "obrigado"), ("thanks", "obrigado"),
    ("thank you very much", "muito obrigado"), ("please", "por favor"), ("yes", "sim"), ("no", "não"),
    ("sorry", "desculpe"), ("excuse me", "com licença"), ("welcome", "bem-vindo"), ("how are you", "como você está"),
    ("i love you", "te amo"), ("i love you very much", "te amo muito"), ("what is your name", "qual é o seu nome"),
    ("nice to meet you", "prazer em conhecer você"), ("see you tomorrow", "até amanhã"), ("good luck", "boa sorte"),
]


# --- specs -----------------------------------------------------------------------------------


class NP(NamedTuple):
    """A noun phrase: "the red cars", "two houses", "water"."""
    det: str  # "the", "a", "my", "your", a number word, digits ("3") or "" (a mass noun alone)
    noun: str
    plural: bool
    adj: Optional[str] = None


class Pron(NamedTuple):
    """A subject pronoun: "she"."""
    word: str


class Name(NamedTuple):
    """A name, copied into the translation as it is: "maria"."""
    word: str


Subject = Union[NP, Pron, Name]


class Sentence(NamedTuple):
    """One clause. ``kind`` and ``x``:

    ========  =====================  ===========================  ============================
    kind      x                      English                      Portuguese
    ========  =====================  ===========================  ============================
    "np"      None (subject only)    the red car                  o carro vermelho
    "be"      adjective              she is (not) tired           ela (não) está cansada
    "with"    adjective of ``WITH``  i am hungry                  estou com fome
    "loc"     NP (a place)           the cat is in the box        o gato está na caixa
    "verb"    (verb, object)         he does not eat the apple    ele não come a maçã
    "intrans" verb                   he does not eat              ele não come
    "where"   None                   where is the cat?            onde está o gato?
    "what"    verb                   what does she want?          o que ela quer?
    "name"    Name                   my name is maria             meu nome é maria
    ========  =====================  ===========================  ============================

    A yes/no question ("is she tired?", "does he eat the apple?") translates
    as the statement does; only the final "?" marks it, in both languages.
    """
    kind: str
    subject: Optional[Subject]
    negated: bool = False
    question: bool = False
    x: object = None
    tense: str = "present"  # "present", "past" or "future"
    time: Optional[str] = None  # a key of TIMES, written at the end


class Compound(NamedTuple):
    """Two statements joined: "she is tired and he is hungry", "i am tired, but you are happy"."""
    first: Sentence
    conj: str  # "and" or "but"
    second: Sentence


class Phrase(NamedTuple):
    """A fixed expression of ``PHRASES``, perhaps said to someone: "good morning, maria"."""
    en: str
    pt: str
    to: Optional[Name] = None


# --- rendering -------------------------------------------------------------------------------


def en_np(np: Subject) -> str:
    if isinstance(np, Pron):
        return np.word
    if isinstance(np, Name):
        return np.word
    n = NOUN[np.noun]
    words = ([np.adj] if np.adj else []) + [n.en_pl if np.plural else n.en]
    det = np.det
    if det == "a" and words[0][0] in "aeiou":
        det = "an"
    return " ".join(([det] if det else []) + words)


def pt_np(np: Subject, prep: Optional[str] = None) -> str:
    """The Portuguese of a noun phrase, behind ``prep`` ("de", "em", "para") if given, contracted where it must."""
    if isinstance(np, Name):
        return f"{prep} {np.word}" if prep else np.word
    n = NOUN[np.noun]
    g = n.gender == "f"
    if np.det in NUMBERS:
        det = NUMBERS[np.det][g]
    elif np.det.isdigit():
        det = np.det
    else:
        det = DETERMINERS[np.det][g + 2 * np.plural]
        if np.det in ("my", "your"):  # the article comes back after a preposition: "do meu", "na sua"
            det = f"{DETERMINERS['the'][g + 2 * np.plural]} {det}" if prep in CONTRACT else det
    if prep in CONTRACT and det.split(" ")[0] in CONTRACT[prep]:
        first, *rest = det.split(" ")
        det = " ".join([CONTRACT[prep][first], *rest])
    elif prep:
        det = f"{prep} {det}" if det else prep
    words = ([det] if det else []) + [n.pt_pl if np.plural else n.pt]
    if np.adj:
        words.append(ADJECTIVE[np.adj].form(n.gender, np.plural))
    return " ".join(words)


def agreement(subject: Subject) -> tuple[str, str, str, bool]:
    """English agreement, Portuguese person, gender and number of a subject."""
    if isinstance(subject, Pron):
        p = PRONOUN[subject.word]
        return p.en_agree, p.person, p.gender, p.plural
    if isinstance(subject, Name):
        return "3s", "3s", "m", False  # gender unknown: only invariable adjectives follow a name
    return ("pl" if subject.plural else "3s"), ("3p" if subject.plural else "3s"), NOUN[subject.noun].gender, \
        subject.plural


def _subjects(subject: Subject) -> tuple[str, Optional[str]]:
    """English and Portuguese subject; the Portuguese is None when it is dropped (eu, nós)."""
    if isinstance(subject, Pron):
        return subject.word, PRONOUN[subject.word].pt
    return en_np(subject), pt_np(subject)


def _en_be(tense: str, agree: str) -> str:
    if tense == "past":
        return "was" if agree in ("1s", "3s") else "were"
    return {"1s": "am", "3s": "is", "pl": "are"}[agree]


def _clause(s: Sentence, contracted: bool) -> tuple[str, str]:
    """English and Portuguese of one clause, without the final mark."""
    if s.kind == "np":
        return en_np(s.subject), pt_np(s.subject)
    if s.kind == "name":  # Pron("i"): "my name is", Pron("you"): "your name is"
        owner = {"i": "my", "you": "your"}[s.subject.word]
        return f"{owner} name is {s.x.word}", f"{DETERMINERS[owner][0]} nome é {s.x.word}"
    agree, person, gender, plural = agreement(s.subject)
    en_subj, pt_subj = _subjects(s.subject)
    no = ["não"] if s.negated else []
    tense = s.tense

    if s.kind in ("be", "with", "loc", "where"):
        if s.kind == "be":
            adj = ADJECTIVE[s.x]
            en_pred, copula, pt_pred = s.x, adj.copula, adj.form(gender, plural)
        elif s.kind == "with":
            en_pred, copula, pt_pred = s.x, "estar", f"com {WITH[s.x]}"
        elif s.kind == "loc":
            en_pred, copula, pt_pred = f"{NOUN[s.x.noun].en_in} {en_np(s.x)}", "estar", pt_np(s.x, "em")
        else:
            en_pred, copula, pt_pred = "", "estar", ""
        if tense == "future":
            be_pt = [GO.split()[PERSONS.index(person)], copula]
            will = "won't" if contracted and s.negated else "will not" if s.negated else "will"
            if s.kind == "where":
                en = f"where will {en_subj} be"
            elif s.question:
                en = f"will {en_subj} be {en_pred}"
            else:
                en = f"{en_subj} {will} be {en_pred}"
        else:
            be_pt = [BE[(copula, tense)].split()[PERSONS.index(person)]]
            be = _en_be(tense, agree)
            if s.kind == "where":
                en = f"where {be} {en_subj}"
            elif s.question:
                en = f"{be} {en_subj} {en_pred}"
            elif contracted and s.negated:  # "i'm not", "he isn't", "they weren't"
                en = ("i'm not" if be == "am" else f"{en_subj} {be}n't") + f" {en_pred}"
            elif contracted and isinstance(s.subject, Pron) and tense == "present":  # "i'm"; a noun keeps "is"
                en = f"{PRONOUN[s.subject.word].en_be} {en_pred}"
            else:
                en = f"{en_subj} {be}{' not' if s.negated else ''} {en_pred}"
        if s.kind == "where":  # "onde está o gato?", but "onde você está?" and "onde estou?"
            pt_words = ["onde"] + ((be_pt + [pt_subj]) if isinstance(s.subject, NP | Name)
                                   else ([pt_subj] if pt_subj else []) + be_pt)
            return en.strip(), " ".join(pt_words)
        pt_words = no + be_pt + [pt_pred]
    else:
        verb = VERB[s.x[0] if s.kind == "verb" else s.x]
        obj = s.x[1] if s.kind == "verb" else None
        obj_en = ""
        if obj is not None:
            obj_en = " " + ("to " if verb.en == "go" else "in " if verb.prep == "em" else "") + en_np(obj)
        do = {"past": "did", "future": "will"}.get(tense, "does" if agree == "3s" else "do")
        if s.kind == "what":
            en = f"what {do} {en_subj} {verb.en}"
        elif s.question:
            en = f"{do} {en_subj} {verb.en}{obj_en}"
        elif s.negated:
            not_ = ("won't" if tense == "future" else f"{do}n't") if contracted else f"{do} not"
            en = f"{en_subj} {not_} {verb.en}{obj_en}"
        elif tense == "future":
            en = f"{en_subj} will {verb.en}{obj_en}"
        elif tense == "past":
            en = f"{en_subj} {verb.en_past}{obj_en}"
        else:
            en = f"{en_subj} {verb.en_3s if agree == '3s' else verb.en}{obj_en}"
        i = PERSONS.index(person)
        if tense == "future":
            v_pt = [GO.split()[i], verb.inf]
        else:
            v_pt = [(verb.past if tense == "past" else verb.present)[person]]
        pt_words = no + v_pt
        if obj is not None:
            pt_words.append(pt_np(obj, verb.prep))
        if s.kind == "what":
            pt_words = ["o", "que"] + ([pt_subj] if pt_subj else []) + pt_words
            return en, " ".join(pt_words)
    pt = " ".join(([pt_subj] if pt_subj else []) + pt_words)
    if s.time:
        en, pt = f"{en} {s.time}", f"{pt} {TIMES[s.time][0]}"
    return en, pt


def render(spec, contracted: bool = False, mark: str = "") -> tuple[str, str]:
    """``(english, portuguese)`` of a spec; ``contracted`` writes "i'm", "isn't", "don't"; ``mark`` ends both."""
    if isinstance(spec, Phrase):
        to = f", {spec.to.word}" if spec.to else ""
        return spec.en + to + mark, spec.pt + to + mark
    if isinstance(spec, Compound):
        a_en, a_pt = _clause(spec.first, contracted)
        b_en, b_pt = _clause(spec.second, contracted)
        en_conj, pt_conj = {"and": (" and ", " e "), "but": (", but ", ", mas ")}[spec.conj]
        return a_en + en_conj + b_en + mark, a_pt + pt_conj + b_pt + mark
    en, pt = _clause(spec, contracted)
    return en + mark, pt + mark


def combinations(spec) -> set[tuple[str, str, str]]:
    """The ("adjective_noun", adj, noun) and ("verb_object", verb, noun) combinations a spec contains."""
    if isinstance(spec, Phrase):
        return set()
    if isinstance(spec, Compound):
        return combinations(spec.first) | combinations(spec.second)
    out = set()
    nps = [np for np in (spec.subject, spec.x) if isinstance(np, NP)]
    if spec.kind == "verb" and isinstance(spec.x[1], NP):
        nps.append(spec.x[1])
        out.add(("verb_object", spec.x[0], spec.x[1].noun))
    for np in nps:
        if np.adj:
            out.add(("adjective_noun", np.adj, np.noun))
    if spec.kind == "be" and isinstance(spec.subject, NP):
        out.add(("adjective_noun", spec.x, spec.subject.noun))
    return out


def english_words() -> set[str]:
    """Every English word the grammar can write (names and numbers in digits aside)."""
    words = set()
    for spec in _all_shapes():
        for tense_spec in spec:
            en, _ = render(tense_spec)
            words.update(en.replace(",", " ,").split())
    return words


def _all_shapes():
    """A few specs of every word and form, for ``english_words``."""
    for n in NOUNS:
        yield [Sentence("np", NP("the", n.en, False))] + ([Sentence("np", NP("two", n.en, True))] if n.en_pl else [])
    for a in ADJECTIVES:
        yield [Sentence("be", Pron("he"), True, False, a.en, t) for t in ("present", "past", "future")]
    for w in WITH:
        yield [Sentence("with", Pron("i"), False, False, w)]
    for v in VERBS:
        kind, x = ("intrans", v.en) if v.intransitive or not (v.objects or v.extra) else \
            ("verb", (v.en, NP("the", next(n.en for n in NOUNS if v.takes(n)), False)))
        tenses = ["present"] + (["past"] if v.en_past else []) + (["future"] if v.future else [])
        yield [Sentence(kind, Pron(p), neg, False, x, t) for t in tenses for p in ("he", "i") for neg in (False, True)]
    for word in NUMBERS:
        yield [Sentence("np", NP(word, "cat", True))]
    for time in TIMES:
        yield [Sentence("intrans", Pron("i"), False, False, "run", TIMES[time][1][0], time)]
    yield [Phrase(en, pt) for en, pt in PHRASES]
    yield [Sentence("where", Pron("you")), Sentence("what", Pron("she"), x="want"),
           Sentence("name", Pron("i"), x=Name("x")), Sentence("name", Pron("you"), x=Name("x")),
           Sentence("np", NP("a", "apple", False)),
           Sentence("loc", Pron("i"), x=NP("the", "beach", False)), Sentence("loc", Pron("i"), x=NP("the", "farm", False)),
           Sentence("be", Pron("i"), True, False, "tired", "present")]
    yield [Compound(Sentence("intrans", Pron("i"), x="run"), c, Sentence("intrans", Pron("i"), x="run"))
           for c in ("and", "but")]
    yield [Sentence("be", Pron(p), False, False, "tired") for p in PRONOUN] + \
          [Sentence("be", Pron(p), True, False, "tired", t) for p in PRONOUN for t in ("present", "past")]


# --- drawing sentences ---------------------------------------------------------------------


class _Rng:
    """SplitMix64: a few lines of integer arithmetic, so the phrasebook is the same on every machine and Python."""

    _MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = seed & self._MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self._MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n  # bias below 1e-15 for the small n used here

    def uniform(self) -> float:
        return (self.next() >> 11) / float(1 << 53)

    def chance(self, p: float) -> bool:
        return self.uniform() < p

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, options):
        """``options`` is a list of (weight, value)."""
        r = self.uniform() * sum(w for w, _ in options)
        for w, value in options:
            r -= w
            if r < 0:
                return value
        return options[-1][1]


_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "or", "is", "ul"]


class _Copied:
    """Names and numbers, each handed out once in the whole phrasebook (so no vocabulary keeps one)."""

    def __init__(self, rng: _Rng):
        self.rng = rng
        self.used: set[str] = set()
        self.words = _lexicon_words()

    def _fresh(self, make) -> str:
        while True:
            word = make()
            if word not in self.used and word not in self.words:
                self.used.add(word)
                return word

    def name(self) -> Name:
        return Name(self._fresh(lambda: "".join(self.rng.choice(_SYLLABLES)
                                                for _ in range(2 + self.rng.below(2)))))

    def number(self) -> str:
        return self._fresh(lambda: str(2 + self.rng.below(9998)))


def _lexicon_words() -> set[str]:
    """Every word the grammar writes, in both languages: no name may be one of them."""
    words = set()
    for shapes in _all_shapes():
        for spec in shapes:
            for side in render(spec):
                words.update(side.replace(",", " ").split())
    for n in NOUNS:
        words.update(w for w in (n.en, n.en_pl, n.pt, n.pt_pl) if w)
    for a in ADJECTIVES:
        words.update((a.en, *a.pt))
    for v in VERBS:
        words.update(w for w in (v.en, v.en_3s, v.en_past, v.inf, *v.present.values(), *v.past.values()) if w)
    return words


_SAID_TO = 20  # each fixed expression is also said to 20 people ("hello, maria"): they are short and few
SPLIT_SIZES = {"train": 40_000 + _SAID_TO * len(PHRASES), "valid": 1_000, "test": 1_500}
_SEED = 2024
_TENSES = [(6, "present"), (2, "past"), (2, "future")]


_CACHE: dict = {}


def _nouns(key, takes) -> list[Noun]:
    """The nouns that satisfy ``takes``, listed once per ``key`` (the grammar asks the same questions often)."""
    if key not in _CACHE:
        _CACHE[key] = [n for n in NOUNS if takes(n)]
    return _CACHE[key]


def _adjectives_of(noun: Noun) -> list[str]:
    key = ("adjectives", noun.en)
    if key not in _CACHE:
        _CACHE[key] = [a.en for a in ADJECTIVES if a.attributive and a.takes(noun)]
    return _CACHE[key]


def _random_np(rng: _Rng, key, takes, copied: _Copied, numbers: bool = True) -> NP:
    """A noun phrase whose noun satisfies ``takes(noun)``: determiner, noun, number, perhaps an adjective."""
    noun = rng.choice(_nouns(key, takes))
    if noun.en_pl is None:  # mass noun: the water, my tea, or water alone
        det = rng.weighted([(4, "the"), (2, "my"), (2, "your"), (3, "")])
        plural = False
    else:
        options = [(4, "the"), (2, "a"), (2, "my"), (2, "your")] if noun.possessive else [(3, "the"), (2, "a")]
        if numbers:
            options += [(1.2, "number"), (0.4, "digits")]
        det = rng.weighted(options)
        if det == "number":
            det = rng.choice(list(NUMBERS))
        elif det == "digits":
            det = copied.number()
        plural = det not in ("a", "the", "my", "your") or (det != "a" and rng.chance(0.4))
    adj = None
    fitting = _adjectives_of(noun)
    if det and fitting and rng.chance(0.45):
        adj = rng.choice(fitting)
    return NP(det, noun.en, plural, adj)


def _random_subject(rng: _Rng, key, takes, copied: _Copied, person: bool = True, name: bool = True) -> Subject:
    r = rng.uniform()
    if person and r < 0.35:
        return Pron(rng.choice(PRONOUNS).en)
    if name and r < 0.45:
        return copied.name()
    return _random_np(rng, key, takes, copied)


def _tense(rng: _Rng, verb: Optional[Verb] = None) -> str:
    tense = rng.weighted(_TENSES)
    if verb is not None and ((tense == "past" and not verb.en_past) or (tense == "future" and not verb.future)):
        return "present"
    return tense


def _time(rng: _Rng, tense: str) -> Optional[str]:
    if not rng.chance(0.15):
        return None
    return rng.choice([t for t, (_, tenses) in TIMES.items() if tense in tenses])


def _random_clause(rng: _Rng, copied: _Copied, kind: str, question: bool = False) -> Sentence:
    neg = not question and rng.chance(0.3)
    if kind == "be":
        subject = _random_subject(rng, "all", lambda n: True, copied)
        if isinstance(subject, NP):
            noun = NOUN[subject.noun]
            adjs = [a.en for a in ADJECTIVES if a.takes(noun) and a.en != subject.adj]
        else:  # a pronoun or a name: what a person can be; a name, only what does not show gender
            adjs = [a.en for a in ADJECTIVES if PERSON in a.classes and (isinstance(subject, Pron) or a.invariable)]
        adj, tense = rng.choice(adjs), _tense(rng)
        time = _time(rng, tense) if ADJECTIVE[adj].copula == "estar" else None  # "is tired today", not "is tall"
        return Sentence("be", subject, neg, question, adj, tense, time)
    if kind == "with":
        subject = _random_subject(rng, "animate", lambda n: n.cls in ANIMATE, copied)
        tense = _tense(rng)
        return Sentence("with", subject, neg, question, rng.choice(list(WITH)), tense, _time(rng, tense))
    if kind == "loc":
        subject = _random_subject(rng, "movable", lambda n: n.cls != PLACE, copied)
        where = _random_np(rng, "where", lambda n: n.cls == PLACE or n.en in CONTAINERS, copied,
                           numbers=False)._replace(plural=False)  # in one place at a time
        tense = _tense(rng)
        return Sentence("loc", subject, neg, question, where, tense, _time(rng, tense))
    if kind == "where":
        subject = _random_subject(rng, "movable", lambda n: n.cls != PLACE, copied)
        return Sentence("where", subject, False, True, None, rng.weighted([(3, "present"), (1, "past"), (1, "future")]))
    if kind == "what":
        verb = rng.choice([v for v in VERBS if v.prep is None and (v.objects or v.extra)])
        subject = _random_subject(rng, ("does", verb.en), lambda n: n.cls in verb.subjects, copied)
        return Sentence("what", subject, False, True, verb.en, _tense(rng, verb))
    if kind == "intrans":
        verb = rng.choice([v for v in VERBS if v.intransitive])
        subject = _random_subject(rng, ("does", verb.en), lambda n: n.cls in verb.subjects, copied,
                                  person=PERSON in verb.subjects)
        tense = _tense(rng, verb)
        return Sentence("intrans", subject, neg, question, verb.en, tense, _time(rng, tense))
    # "verb": a pronoun, a name or a noun phrase does something to a noun phrase or a name
    verb = rng.choice([v for v in VERBS if v.objects or v.extra])
    subject = _random_subject(rng, ("does", verb.en), lambda n: n.cls in verb.subjects, copied,
                              person=PERSON in verb.subjects, name=PERSON in verb.subjects)
    obj = copied.name() if verb.names and rng.chance(0.15) else _random_np(rng, ("object", verb.en), verb.takes, copied)
    if verb.prep == "em":  # one place at a time: "she lives in the city"
        obj = obj._replace(plural=False, det="the" if obj.det not in ("the", "a", "my", "your") else obj.det)
    tense = _tense(rng, verb)
    return Sentence("verb", subject, neg, question, (verb.en, obj), tense, _time(rng, tense))


def _random_spec(rng: _Rng, copied: _Copied):
    """One sentence of the larger templates."""
    kind = rng.weighted([
        (8, "np"), (16, "be"), (4, "with"), (6, "loc"), (34, "verb"), (6, "intrans"), (5, "q_be"), (8, "q_verb"),
        (3, "where"), (4, "what"), (1, "name"), (8, "compound"),
    ])
    if kind == "np":
        return Sentence("np", _random_np(rng, "all", lambda n: True, copied))
    if kind == "name":
        return Sentence("name", Pron(rng.choice(["i", "you"])), x=copied.name())
    if kind == "compound":
        clauses = [_random_clause(rng, copied, rng.weighted([(3, "be"), (1, "with"), (1, "loc"), (4, "verb"),
                                                            (2, "intrans")])) for _ in range(2)]
        clauses = [c._replace(time=None) if len(render(c)[0].split()) > 7 else c for c in clauses]
        return Compound(clauses[0], rng.weighted([(3, "and"), (1, "but")]), clauses[1])
    if kind.startswith("q_"):
        return _random_clause(rng, copied, kind[2:], question=True)
    return _random_clause(rng, copied, kind)


def _spelling(rng: _Rng, spec) -> tuple[bool, str]:
    """Contracted or not, and the final mark: mostly ".", often none, sometimes "!" or "?"."""
    question = isinstance(spec, Sentence) and spec.question
    contracted = not question and rng.chance(0.2)
    if question:
        mark = rng.weighted([(85, "?"), (15, "")])
    else:
        mark = rng.weighted([(50, "."), (30, ""), (10, "!"), (10, "?")])
    return contracted, mark


def _hold_out(rng: _Rng, protected: set) -> dict[str, set]:
    """Choose, for every noun, one adjective and one verb held out for "test" and another for "valid".

    Each is picked among the words that take that noun, preferring the word
    with the smallest share of its nouns held out so far (ties broken by
    ``rng``); a word keeps at least three quarters of its nouns in training
    and a noun at least two of its words, so every word is learnt in many
    combinations. ``protected`` combinations (those of the examples) are never
    held out.
    """
    held = {"test": set(), "valid": set()}
    for kind, words in (("adjective_noun", [a for a in ADJECTIVES if a.attributive]),
                        ("verb_object", [v for v in VERBS if v.objects or v.extra])):
        count = Counter()
        takers = {w.en: sum(w.takes(n) for n in NOUNS) for w in words}
        nouns = list(NOUNS)
        for i in range(len(nouns) - 1, 0, -1):  # Fisher-Yates shuffle
            j = rng.below(i + 1)
            nouns[i], nouns[j] = nouns[j], nouns[i]
        for noun in nouns:
            candidates = [w.en for w in words if w.takes(noun) and (kind, w.en, noun.en) not in protected]
            for split in ("test", "valid"):
                # A word keeps at least three quarters of its nouns in training (and at least three).
                candidates = [w for w in candidates if count[w] + 1 <= max(1, (takers[w] - 3) // 4)]
                candidates.sort(key=lambda w: (count[w] / takers[w], rng.next()))
                if len(candidates) < 3:  # the noun keeps at least two of its words in training
                    break
                word = candidates.pop(0)
                count[word] += 1
                held[split].add((kind, word, noun.en))
    return held


def _np(text: str) -> NP:
    """A noun phrase written in English: ``_np("the red cars")``."""
    words = text.split()
    det, noun_word = words[0], words[-1]
    adj = words[1] if len(words) == 3 else None
    det = "a" if det == "an" else det
    for noun in NOUNS:
        if noun_word in (noun.en, noun.en_pl):
            return NP(det, noun.en, noun_word == noun.en_pl and noun.en != noun.en_pl, adj)
    raise KeyError(f"no noun {noun_word!r} in the phrasebook's lexicon")


def _subject(text: str) -> Subject:
    return Pron(text) if text in PRONOUN else _np(text)


def _s(kind, subject, x=None, neg=False, question=False, tense="present", time=None) -> Sentence:
    return Sentence(kind, _subject(subject) if isinstance(subject, str) else subject, neg, question, x, tense, time)


# The examples of the course's text, always in the training split: with no final mark and with
# "." (questions: "?"). Each is a spec plus "contracted".
_EXAMPLES = [
    (_s("np", "the red car"), False),
    (_s("be", "she", "tired"), False),
    (_s("np", "the black cats"), False),
    (_s("be", "i", "happy"), False),
    (_s("intrans", "he", "eat", neg=True), False),
    (_s("with", "i", "hungry"), False),
    (_s("verb", "i", ("like", _np("the cat"))), False),
    (_s("verb", "i", ("eat", _np("the apple"))), False),
    (_s("verb", "we", ("eat", _np("the apple"))), False),
    (_s("verb", "he", ("eat", _np("the apple")), neg=True), False),
    (_s("verb", "i", ("like", _np("the cat")), neg=True), False),
    (_s("be", "the black cats", "small"), False),
    (_s("be", "they", "tall"), False),
    (_s("be", "the house", "small"), False),
    (_s("be", "the houses", "old"), False),
    (_s("be", "the tables", "red"), False),
    (_s("be", "the girls", "tired"), False),
    (_s("be", "the boys", "sad"), False),
    (_s("be", "the girl", "happy"), False),
    (_s("be", "the girl", "sad"), False),
    (_s("be", "the car", "ready"), False),
    (_s("with", "the dogs", "hungry"), False),
    (_s("np", "my black cat"), False),
    (_s("np", "your red apples"), False),
    (_s("np", "my house"), False),
    (_s("np", "my books"), False),
    (_s("np", "your table"), False),
    (_s("np", "a big dog"), False),
    (_s("np", "an apple"), False),
    (_s("np", "an old car"), False),
    (_s("np", "a small house"), False),
    *[(_s("np", f"the {n}"), False)
      for n in ("cats", "dogs", "houses", "cars", "books", "apples", "girls", "boys", "tables")],
    (_s("verb", "she", ("like", _np("the girls"))), False),
    (_s("verb", "they", ("like", _np("my house"))), False),
    (_s("verb", "we", ("need", _np("a book"))), False),
    (_s("verb", "you", ("like", _np("an apple"))), False),
    (_s("verb", "i", ("like", _np("your dogs"))), False),
    (_s("verb", "they", ("have", _np("a car"))), False),
    (_s("verb", "you", ("see", _np("the dog"))), False),
    (_s("verb", "they", ("see", _np("the dogs"))), False),
    (_s("verb", "she", ("read", _np("the book"))), False),
    (_s("verb", "the girl", ("read", _np("the book"))), False),
    (_s("verb", "the dogs", ("eat", _np("the apples")), neg=True), False),
    (_s("verb", "the boy", ("have", _np("a red car"))), False),
    (_s("be", "you", "tired", question=True), False),
    (_s("verb", "she", ("like", _np("the cat")), question=True), False),
    (_s("be", "the car", "red", question=True), False),
    (_s("verb", "he", ("eat", _np("the apple")), neg=True), True),
    # the new shapes
    (_s("verb", "i", ("have", _np("two dogs"))), False),
    (_s("np", "two houses"), False),
    (_s("loc", "the cat", _np("the box")), False),
    (_s("verb", "she", ("go", _np("the school"))), False),
    (_s("verb", "she", ("eat", _np("the apple")), tense="future"), False),
    (_s("verb", "she", ("eat", _np("the apple")), tense="past"), False),
    (_s("be", "she", "tired", tense="past"), False),
    (_s("where", "the cat", question=True), False),
    (_s("what", "she", "want", question=True), False),
    (_s("verb", "i", ("love", _np("the city"))), False),
    (_s("verb", "we", ("live", _np("the city"))), False),
    (Compound(_s("be", "she", "tired"), "and", _s("with", "he", "hungry")), False),
]


def _small_templates() -> list[Sentence]:
    """Every sentence of the small templates: a pronoun with "be", "be hungry" and the like, or a verb alone."""
    specs = []
    for p in PRONOUNS:
        subject = Pron(p.en)
        for neg in (False, True):
            for adj in ADJECTIVES:
                if PERSON in adj.classes:
                    specs.append(Sentence("be", subject, neg, False, adj.en))
            for w in WITH:
                specs.append(Sentence("with", subject, neg, False, w))
            for verb in VERBS:
                if verb.intransitive and PERSON in verb.subjects:
                    specs.append(Sentence("intrans", subject, neg, False, verb.en))
    return specs


@lru_cache(maxsize=1)
def _build() -> tuple[dict, dict]:
    """All three splits, and the held-out combinations of "test" and "valid"."""
    rng = _Rng(_SEED)
    protected = set().union(*(combinations(spec) for spec, _ in _EXAMPLES))
    held = _hold_out(rng, protected)
    for spec, _ in _EXAMPLES:
        assert not combinations(spec) & (held["test"] | held["valid"]), spec
    copied = _Copied(rng)

    splits = {"train": [], "valid": [], "test": []}
    seen_en: set[str] = set()
    seen_spec: set = set()

    def add(split, spec, contracted, mark):
        en, pt = render(spec, contracted, mark)
        if en not in seen_en:
            seen_en.add(en)
            splits[split].append((en, pt))
        seen_spec.add(spec)

    # The fixed expressions, alone and said to someone. Their names are four syllables long, from a
    # generator of their own, so that the sentences drawn below are the same as without them.
    said_to = _Rng(_SEED + 1)
    for en, pt in PHRASES:
        marks = ("?", "") if en.startswith(("how", "what")) else ("", ".", "!")
        for mark in marks:
            add("train", Phrase(en, pt), False, mark)
        for _ in range(_SAID_TO):
            name = Name(copied._fresh(lambda: "".join(said_to.choice(_SYLLABLES) for _ in range(4))))
            add("train", Phrase(en, pt, name), False, said_to.choice(marks))
    for spec, contracted in _EXAMPLES:
        for mark in (("?", "") if getattr(spec, "question", False) else ("", ".")):
            add("train", spec, contracted, mark)
    for spec in _small_templates():
        for mark in ("", ".", "!", "?"):
            add("train", spec, False, mark)
            add("train", spec, True, mark)  # the same English when nothing contracts: skipped

    # Draw sentences and file each by its combinations: one held out for "test" makes it a test
    # sentence, one held out for "valid" a validation sentence, neither a training sentence.
    for _ in range(50 * sum(SPLIT_SIZES.values())):
        if all(len(splits[s]) >= n for s, n in SPLIT_SIZES.items()):
            return splits, held
        spec = _random_spec(rng, copied)
        contracted, mark = _spelling(rng, spec)
        combos = combinations(spec)
        in_test, in_valid = bool(combos & held["test"]), bool(combos & held["valid"])
        if spec in seen_spec or (in_test and in_valid):
            continue
        split = "test" if in_test else "valid" if in_valid else "train"
        if len(splits[split]) < SPLIT_SIZES[split]:
            add(split, spec, contracted, mark)
    raise RuntimeError(f"the grammar ran out of new sentences for SPLIT_SIZES={SPLIT_SIZES}: "
                       f"got {({s: len(p) for s, p in splits.items()})}")


def phrasebook(split: str = "train") -> list[tuple[str, str]]:
    """``(english, portuguese)`` sentence pairs of the course's phrasebook, for ``"train"``, ``"valid"`` or ``"test"``.

    The pairs come from a grammar of English and Portuguese (no download) and
    are the same on every machine and every call: 40,440 for training (40,000
    drawn, and the fixed expressions alone and said to someone: "hello, maria"),
    1,000 for validation and 1,500 for testing, all different. Sentences are
    lower-case; a final ``.``, ``!`` or ``?`` (or none) is the same on both
    sides::

        ("i am happy.", "sou feliz.")                    eu is dropped
        ("she is tired.", "ela está cansada.")           estar, feminine
        ("the red car", "o carro vermelho")              the adjective moves
        ("he does not eat the apple.", "ele não come a maçã.")
        ("i like the cat.", "gosto do gato.")            de + o = do
        ("the cat is in the box.", "o gato está na caixa.")     em + a = na
        ("she will eat the apple.", "ela vai comer a maçã.")    ir + infinitive
        ("i have 3 dogs.", "tenho 3 cachorros.")          the number is copied

    The grammar: subject pronouns (i, you, he, she, we, they → eu, você, ele,
    ela, nós, eles; eu and nós dropped); noun phrases (the/a/my/your, number
    words and digits, at most one adjective, singular or plural; mass nouns
    such as water alone); names; present, past and future; "be" with an
    adjective (ser or estar), with hungry/thirsty/afraid/sleepy (estar com),
    with a place (estar em); a verb with or without an object; yes/no
    questions, "where" and "what" questions; two clauses joined by "and" or
    "but"; "my name is ..."; times (today, yesterday, tomorrow, ...); and a
    few fixed expressions (hello, thank you, ...). Words only meet where they
    make sense: people eat food and read paper, colours are for animals and
    things, never for people.

    The training split comes in order: the fixed expressions first, then the
    text's examples and the small templates, then the drawn sentences; for a
    sample, take pairs spread over it, not its first ones.

    The test split holds out combinations: for most nouns, one adjective and
    one verb (as its object) never occur with that noun in training; the
    sentences that contain them make the test split. The validation split
    does the same with other combinations (``held_out`` lists both).

    Used in chapter 9 (Training a translator).
    """
    if split not in SPLIT_SIZES:
        raise ValueError(f"split must be one of {sorted(SPLIT_SIZES)}, got {split!r}")
    return list(_build()[0][split])


def held_out(split: str = "test") -> dict[str, frozenset[tuple[str, str]]]:
    """The combinations held out of training for ``"test"`` or ``"valid"``, as English words.

    Returns ``{"adjective_noun": {("red", "house"), ...}, "verb_object":
    {("eat", "cake"), ...}}``: no training sentence pairs that adjective with
    that noun (as "the red house" or "the house is red") or has that noun as
    that verb's object; every sentence of ``split`` contains at least one of
    its own combinations and none of the other split's.

    Used in chapter 9 (Training a translator).
    """
    if split not in ("test", "valid"):
        raise ValueError(f"only 'test' and 'valid' hold combinations out, got {split!r}")
    held = _build()[1][split]
    return {
        kind: frozenset((a, b) for k, a, b in held if k == kind) for kind in ("adjective_noun", "verb_object")
    }
