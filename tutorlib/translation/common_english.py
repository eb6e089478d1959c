"""Common English words the phrasebook lacks, one edit from a word it has: never read as typos.

A learner who types "word", "many" or "wife" meant them; read as typos they would become
"work", "man" and "wine" ("I love my wine"). ``tutorlib.translation.typos.read_typos`` leaves
them as typed (the models copy them, as any word they never learned, and say so). The list
is data, for the JavaScript mirror of the rule too: the 10,000 most frequent English words of
wordfreq 3.1.1 (``wordfreq.top_n_list("en", 10000)``; wordfreq by Robyn Speer, its word lists
under CC BY-SA 4.0: this selection of them is credited to it and offered under the same
licence), those of ASCII letters alone, three
letters or more, in neither the phrasebook's English nor its Portuguese
(``grammar.english_words``, ``grammar.portuguese_words``) and one edit from one of its English
words (``typos.one_edit``), profanity left out, with a few function words added by hand
("us", "its"). A word the phrasebook gains may need the list made again with that recipe.

Derived in chapter 10 (Translating and evaluating).
"""

COMMON_ENGLISH = frozenset(
    """
able ace acre act acts add again age ago aid aim aired alike alive all along also alt always
amen amp amy ana andy ann another ant any applies apply arc area arm arms around art as ash
ashes asleep atm aug ave awe axe aye babe back backs bail bake bald ballet ban band bands bang
bar bare bark barry bars bases bash bass bat batch bats battle battles bay beam bean beans
beard beat beats beef been beer beers beg being beings bell bells ben bench bend bent bet bets
better bid bids bike bikes bill bills bin bio bit blacks blank block blocks blow blown blues
bob body boeing bold bolt bones boo booked boom boot boots boss bot both bother bound
bout bow boxing boyd brad brain brains brake breach bred breed broad broker brooks browns buck
bucks bud bug bugs bull bulls bump bunny bury bush bust by bye cab cable cables cafe cage cal
call calls cam came camp camps can cannot cans cant cap cape caps care cared cares carl
carrier carriers cart case cases cash cast cattle cave cell cells cent chad chain chains chase
chat cheat chi chile chill chin choir chosen clan class classes cleaner clear cleared click
closer closest closet clue coal coast cod coke col cole come con cool cop cops cord cos cost
costs couch could counter counties county coup court courts cox crew crimes crow crown cubs
cunt curry curse cut cuts cuz dad dam dame dan dancer dancers dare dark dash date dated dates
dave days dear deck dee deeds demon demons den der des dies difficulty dig dip dirt dive diy
doc dock doe dom don dong donor donors doom dose doses dot doug drag drain drawn dressed dried
driven driver drivers drone drought drunk dry dug dull dump dumped duo dvd each ear ears ease
east ego eighth end est even ever excuses extensive eyes fact fade faint fake fall falls fame
fan far fare farther fate fear fears feast feat feathers feb fee feel feels fees feet fell
fellow fellows few fig fight file filed files fill fine fines finn fire fired fires firm firms
fist fit flat fled flesh flour flow fog fold folk folks fond food for ford forge form former
forms fort fought foul frank freak fred free freed fried fries from fry fuel fully fun fund
funds fur game gang gap gaps gary gas gate gates gather gave gear gen get gig give gives
gloves glow glue goal goals god gods gold golf goods gop got gov grab grace grade grades grain
graph grass grave graves greek greens grew grey ground grove grown guild guilt gut guy guys
hair hall halls halt ham han hand hands hang hans hard harm harry hart hatch hatred haven hay
hayes head heads heal heart hearts heat heated height heir her here hers hes hey hike hill him
hip hire hired his hit hits hiv hole holes hollow holy hon hong hood hook hooked hop host hour
hub huge hugh huh hull hung hungary hut ian ice if ill inc ing ink inland inn ins int into ion
ios iphone iran irs iso its ive jade jake jam jan jar jaw jay jet jew jill jin jon jose joy
jun just kate kay keep ken kent kept kid kids kinda kinds kirk kits knee knight known kong
lack lad lake lakes lamb lame lance land lane lanes lang lap larry las last late later latter
laughter law lay lead leads leak lean lease led lee leeds lens leon les less let lid lie lied
lies life light lime lin line lined lines link linked list liver lock locks log logs lone look
looked looks loose los loser losers loss losses lot lots lou lover lovers low lower lucky lucy
luke lung lyon mac mad main maker makers male males mall many mar mark marked marker marks
married marry mars mass mat match matched matches mate mates max may meal mean meant med meets
mel melt menu mere met mic mick mid might mike mild mile miles mill min mind minds mine miss
missed misses mix mixed mls mode mon money mood more moses most mount mounted move moved moves
mps must mvp named names nap nash nate near neat neighbours neo net never news niche nick
niece nights nike nina non none nor nose note nov nsw nut odd of off officer officers often
okay olds olive one only onto opener or ore other others ought our ours out oven over owe owen
own pack packs pad pain pains painter pan pants par paris part parts past pat patch patches
pay peak peaks pearl pee peer peers penis penn people per person pet pets pic pick picked
picks pics pictured pier pile pill pills pin pine pins pipe pipes pissed pit pity place places
plan planet planets plans plant plants pleased poet poets point pointed points poll polls pool
pork pose poses post pot pound pour pray pre press price print printed prints prone prove pump
pumped pumps punk purse put quit quite race rain rains ram ramp rand range ranges rank ranks
rap rare rat rate rated rates rather rats raw ray reach reaches real rear reds reed ref refer
referred refers reid rent rep res rev rex rey rick rid ride rides rig right rise road roads
rod roman ron roof rookie root roots rose roses rounds row rows roy rub ruin ruins rush rushed
ryan sack said saint saints sake sam same san sand sat save say scam score scores sea seal
seals seas seat seats sec seed seeds seek seeks seem seems seen self sen sent seo sep sept set
sets shake shall shave shaw shed sheep sheet shell shells shift shifts shop shops shore short
shorts shot shots should show shows shy side sides sight sign signs silk sims sin singh sink
sins sir sit skirt slam slate slim slot slower snow so soap soda sole solid solo some song
songs sony soo soon sore sort sought soul sound sour sox spam spark spell spelled spells
stable stake stakes stall stare start steep steven stick still sting stole stone stones stored
storm storms strain string struck studios such sue sued sun sung sunny sure swamp swan swap
sweat sweep swept swing swiss tablet tablets tag tags tail taken tale tales talk talked talks
tan tank tanks tap tape tapes taught taxes teach teaches team tear tears ted tee teen tel tell
tells tend tens tent than that thats thee their them then there these thing things think
thinks thirty this tho those thrown thy tick tide tie tied tier ties tight till time times tin
tire tires toe toes told toll tom ton tons tony too tool top tops tory toss tough tour track
tracks trail trails traits trans travelled trek trick tricks tried tries troy true trunk try
tweet twin und under union unions up ups us usb usd user users using van vary vast vent vet
vice von wade wait waited wake wales walker wall walls walsh walt walter wan wang war ward
warm wars wasted waters watts wave wax way ways wear wears web wee weed week weight welcomed
well wells west whats wheat when which while whites who whore whose why wicked wide widow wife
wild win wind winds wines wing wings wins wipe wire wired wise wish wished wishes wit witch
with without wives won wont woo wood word words wore worker worms worn worry worse would wound
wow writer writers wwe xbox yang yard yards yay yea yeah year years yell yep yet york youre
yours yup zoom
""".split()
)
